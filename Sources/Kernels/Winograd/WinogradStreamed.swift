/// Streamed F(4×4, 3×3) through OpenBLAS's kernel (`PackedGEMM`): the weights are transformed
/// during the forward pass, a block of filters at a time, straight into the kernel's panel
/// layout, so the layer holds only its plain weights (9 floats a kernel instead of 36) and no
/// product packs them again. It runs where the weights transformed at load would not fit the
/// memory budget: yolov3 ran 1.6× slower with im2col on those layers (docs/bench-log.md).
///
/// The plain weights are stored panel-major (`reorderPanels`): for each panel of 4 filters (the
/// kernels' `unrollN`), tap by tap, channel by channel, the 4 filters' values side by side. The
/// transform then reads one vector per tap and writes one vector per position, and each vector
/// lands where the kernel's panel wants it (`panelOffset`). It runs in Float (the load-time
/// transform in Double), with the same `G` as `Winograd.kernelF4` (`transformTaps`): results
/// differ from pre-transformed F(4×4)'s by rounding only.
/// Blocks depend on the shape alone, so the bits are the same on any thread count.
extension Winograd {
    /// Filters one panel holds (every kernel in `PackedGEMM.unrolls` has `unrollN` 4).
    static let panelFilters = 4

    /// True when a layer of `filters` outputs can run streamed F(4×4) with `kernel`: there is
    /// one, and the filters fill whole panels.
    package static func streams(filters: Int, kernel: PackedGEMM.Kernel?) -> Bool {
        guard let kernel else { return false }
        return kernel.unrollN == panelFilters && filters % panelFilters == 0
    }

    /// Most workers that share the streamed products (each holds its own blocks of transformed
    /// weights and of M, about 1.2 MB at 512 channels).
    static let streamedWorkers = 4

    /// Filters transformed and multiplied at a time: 16, so a block's 36 positions of `16 × C`
    /// (1.2 MB at C = 512) are each read once by the kernel right after they are written.
    static let streamedPackedBlockFilters = 16

    /// Floats between the positions of a worker's block: one cache line more than the block's
    /// `count × channels`, so the 36 vectors the transform writes together (one per position)
    /// do not all map to one cache set (at 16 × 512 they would be exactly 32 KiB apart).
    static func streamedPackedPositionStride(count: Int, channels: Int) -> Int { count * channels + 16 }

    /// Scratch floats of one streamed worker: its block's transformed weights (positions ×
    /// `streamedPackedPositionStride`) and its block of M (positions × 16 filters × `tileCount` tiles).
    static func streamedPackedScratchCount(channels: Int, tileCount: Int) -> Int {
        positions * (streamedPackedPositionStride(count: streamedPackedBlockFilters, channels: channels)
            + streamedPackedBlockFilters * tileCount)
    }

    /// darknet's `filters × channels × 3 × 3` weights reordered in place to panel-major order,
    /// `filters/4 × 9 × channels × 4` (element (f, c, tap) at `((f/4·9 + tap)·channels + c)·4 + f%4`).
    package static func reorderPanels(_ weights: inout [Float], filters: Int, channels: Int, threads: Int) {
        precondition(weights.count == filters * channels * 9 && filters % panelFilters == 0,
                     "reorderPanels: \(weights.count) weights for \(filters)×\(channels)×3×3")
        let perPanel = panelFilters * channels * 9
        weights.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let base = buffer.baseAddress!
            Parallel.forChunks(of: filters / panelFilters, work: filters * channels * 9, threads: threads) { range in
                withUnsafeTemporaryAllocation(of: Float.self, capacity: perPanel) { aside in
                    let from = aside.baseAddress!
                    for panel in range {
                        let to = base + panel * perPanel
                        from.update(from: to, count: perPanel)
                        for i in 0..<panelFilters {
                            for c in 0..<channels {
                                for tap in 0..<9 {
                                    to[(tap * channels + c) * panelFilters + i] = from[(i * channels + c) * 9 + tap]
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Where channel `c` of a panel starting at row `row` goes in `PackedGEMM.packWeights`'
    /// layout of `rows` rows and `channels` deep (its K blocks of `PackedGEMM.kBlock`).
    @inline(__always)
    static func panelOffset(row: Int, channel c: Int, rows: Int, channels: Int) -> Int {
        let k0 = c / PackedGEMM.kBlock * PackedGEMM.kBlock
        let kk = min(PackedGEMM.kBlock, channels - k0)
        return k0 * rows + row * kk + (c - k0) * panelFilters
    }

    /// `U = G g Gᵀ` (F(4×4), in Float) of the `count` filters from `first` (whole panels) into
    /// `u`: position ξ's `count × channels` operand, packed, at `u + ξ·streamedPackedPositionStride`.
    /// Each 3×3 kernel goes through `G` down its columns of taps, then along the rows of the
    /// result (`transformTaps`), 4 filters at a time.
    static func transformPanels(_ panels: UnsafePointer<Float>, channels: Int, first: Int, count: Int,
                                into u: UnsafeMutablePointer<Float>) {
        typealias Lanes = SIMD4<Float>
        let positionBytes = streamedPackedPositionStride(count: count, channels: channels) * MemoryLayout<Float>.stride
        let tapBytes = channels * panelFilters * MemoryLayout<Float>.stride
        for row in Swift.stride(from: 0, to: count, by: panelFilters) {
            let taps = panels + (first + row) * 9 * channels
            for c in 0..<channels {
                let g = UnsafeRawPointer(taps + c * panelFilters)
                @inline(__always) func tap(_ t: Int) -> Lanes { (g + t * tapBytes).loadUnaligned(as: Lanes.self) }
                let out = UnsafeMutableRawPointer(u + panelOffset(row: row, channel: c, rows: count, channels: channels))
                forEachRow(transformTaps(tap(0), tap(3), tap(6)), transformTaps(tap(1), tap(4), tap(7)),
                           transformTaps(tap(2), tap(5), tap(8))) { r, a, b, c in
                    let t = transformTaps(a, b, c)
                    let base = out + 6 * r * positionBytes
                    base.storeBytes(of: t.0, as: Lanes.self)
                    (base + positionBytes).storeBytes(of: t.1, as: Lanes.self)
                    (base + 2 * positionBytes).storeBytes(of: t.2, as: Lanes.self)
                    (base + 3 * positionBytes).storeBytes(of: t.3, as: Lanes.self)
                    (base + 4 * positionBytes).storeBytes(of: t.4, as: Lanes.self)
                    (base + 5 * positionBytes).storeBytes(of: t.5, as: Lanes.self)
                }
            }
        }
    }

    /// `G (g0, g1, g2)` of F(4×4), `Winograd.kernelF4`'s `g0/4, −(g0 + g1 + g2)/6,
    /// −(g0 − g1 + g2)/6, g0/24 + g1/12 + g2/6, g0/24 − g1/12 + g2/6, g2`, in Float with the
    /// shared sums taken once (`g0 + g2`, `g0/24 + g2/6`) and the divisions as products with the
    /// reciprocals: 6 additions and 6 products where the written-out form takes 8 and 7, which
    /// shows in the streamed layers' transform time (docs/bench-log.md). It rounds differently from
    /// the Double transform of pre-transformed F(4×4) by an ulp or so.
    @inline(__always)
    static func transformTaps(_ g0: SIMD4<Float>, _ g1: SIMD4<Float>, _ g2: SIMD4<Float>)
        -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
        let outer = g0 + g2
        let even = g0 * (1 / 24 as Float) + g2 * (1 / 6 as Float)
        let odd = g1 * (1 / 12 as Float)
        return (g0 * (1 / 4 as Float), (outer + g1) * (-1 / 6 as Float), (outer - g1) * (-1 / 6 as Float),
                even + odd, even - odd, g2)
    }

    /// The streamed F(4×4) products of one pass: `filters` in blocks of `streamedPackedBlockFilters`
    /// shared out to up to `threads` workers (at most `maximumWorkers`). `packedTiles` holds each
    /// (position, image)'s tiles packed for the kernel (`PackedGEMM.packColumns`, `channels ×
    /// perImage` each, position-major). Each worker transforms a block into its scratch (`scratch
    /// + worker · streamedPackedScratchCount`), runs the block's products into its block of M,
    /// then `finish(worker, f, M row of f at position 0, position stride)` for each filter of the block.
    static func streamedPackedProducts(panels: UnsafePointer<Float>, channels: Int, filters: Int,
                                       packedTiles: UnsafePointer<Float>, tileCount: Int, perImage: Int, images: Int,
                                       scratch: UnsafeMutablePointer<Float>, kernel: PackedGEMM.Kernel, threads: Int,
                                       finish: (_ worker: Int, _ filter: Int, _ m: UnsafePointer<Float>, _ positionStride: Int) -> Void) {
        let blockFilters = streamedPackedBlockFilters
        let blocks = (filters + blockFilters - 1) / blockFilters
        let perWorker = streamedPackedScratchCount(channels: channels, tileCount: tileCount)
        Parallel.forWorkers(of: blocks, work: filters * channels * tileCount, threads: threads,
                            maximumWorkers: streamedWorkers) { worker, range in
            let u = scratch + worker * perWorker
            let m = u + positions * streamedPackedPositionStride(count: blockFilters, channels: channels)
            for block in range {
                let first = block * blockFilters, count = min(blockFilters, filters - first)
                transformPanels(panels, channels: channels, first: first, count: count, into: u)
                let mStride = count * tileCount
                let uStride = streamedPackedPositionStride(count: count, channels: channels)
                for position in 0..<positions {
                    for b in 0..<images {
                        PackedGEMM.multiply(kernel, packedWeights: u + position * uStride, rows: count,
                                            rowRange: 0..<count,
                                            packedColumns: packedTiles + (position * images + b) * channels * perImage,
                                            columns: perImage, columnRange: 0..<perImage, k: channels,
                                            c: m + position * mStride + b * perImage, ldc: tileCount)
                    }
                }
                for i in 0..<count { finish(worker, first + i, m + i * tileCount, mStride) }
            }
        }
    }
}
