/// Streamed F(4×4, 3×3) through OpenBLAS's kernel (`PackedGEMM`): the weights are transformed
/// during the forward pass, a block of filters at a time, straight into the kernel's panel
/// layout, so the layer holds only its plain weights (9 floats a kernel instead of 36) and no
/// product packs them again. With the kernel driven this way F(4×4)'s products run as fast on
/// yolov3's 26×26 and 13×13 grids (49 and 16 tiles) as on large ones, and F(4×4) does 36
/// products per 16 outputs where F(2×2) does 64: streamed F(4×4) beats pre-transformed F(2×2)
/// there for no parameter memory.
///
/// The plain weights are stored panel-major (`reorderPanels`): for each panel of 4 filters (the
/// kernels' `unrollN`), tap by tap, channel by channel, the 4 filters' values side by side. The
/// transform then reads one vector per tap and writes one vector per position, and each vector
/// lands where the kernel's panel wants it (`panelOffset`). It runs in Float (the load-time
/// transform in Double), with the same `G` as `Winograd.kernelF4` and its divisions taken as
/// products with the reciprocals: results differ from pre-transformed F(4×4)'s by rounding only.
/// Blocks depend on the shape alone, so the bits are the same on any thread count.
extension Winograd {
    /// Filters one panel holds (every kernel in `PackedGEMM.unrolls` has `unrollN` 4).
    static let panelFilters = 4

    /// True when a layer of `filters` outputs can run streamed F(4×4): OpenBLAS's kernel is
    /// available and the filters fill whole panels.
    static func streamsPacked(filters: Int) -> Bool {
        guard let kernel = PackedGEMM.active else { return false }
        return kernel.unrollN == panelFilters && filters % panelFilters == 0
    }

    /// Filters transformed and multiplied at a time: 16, so a block's 36 positions of `16 × C`
    /// (1.2 MB at C = 512) are each read once by the kernel right after they are written.
    static let streamedPackedBlockFilters = 16

    /// Floats between the positions of a worker's block: one cache line more than the block's
    /// `count × channels`, so the 36 vectors the transform writes together (one per position)
    /// do not all map to one cache set (at 16 × 512 they would be exactly 32 KiB apart).
    static func streamedPackedPositionStride(count: Int, channels: Int) -> Int { count * channels + 16 }

    /// Scratch floats of one streamed worker: its block's transformed weights (positions ×
    /// `streamedPackedPositionStride`) and its block of M (positions × 16 filters × `tileCount` tiles).
    static func streamedPackedScratchCount(_ variant: Variant, channels: Int, tileCount: Int) -> Int {
        variant.positions * (streamedPackedPositionStride(count: streamedPackedBlockFilters, channels: channels)
            + streamedPackedBlockFilters * tileCount)
    }

    /// darknet's `filters × channels × 3 × 3` weights reordered in place to panel-major order,
    /// `filters/4 × 9 × channels × 4` (element (f, c, tap) at `((f/4·9 + tap)·channels + c)·4 + f%4`).
    static func reorderPanels(_ weights: inout [Float], filters: Int, channels: Int) {
        precondition(weights.count == filters * channels * 9 && filters % panelFilters == 0,
                     "reorderPanels: \(weights.count) weights for \(filters)×\(channels)×3×3")
        let perPanel = panelFilters * channels * 9
        weights.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let base = buffer.baseAddress!
            Parallel.forChunks(of: filters / panelFilters, work: filters * channels * 9) { range in
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
    static func transformPanels(_ panels: UnsafePointer<Float>, channels: Int, first: Int, count: Int,
                                into u: UnsafeMutablePointer<Float>) {
        let positionStride = streamedPackedPositionStride(count: count, channels: channels)
        for row in Swift.stride(from: 0, to: count, by: panelFilters) {
            let taps = panels + (first + row) * 9 * channels
            for c in 0..<channels {
                let g = taps + c * panelFilters
                let out = u + panelOffset(row: row, channel: c, rows: count, channels: channels)
                kernelF4({ (t: Int) in
                    FloatLanes(UnsafeRawPointer(g + t * channels * panelFilters).loadUnaligned(as: SIMD4<Float>.self))
                }, { (index: Int, value: FloatLanes) in
                    UnsafeMutableRawPointer(out + index * positionStride).storeBytes(of: value.lanes, as: SIMD4<Float>.self)
                })
            }
        }
    }

    /// The streamed F(4×4) products of one pass: `filters` in blocks of `streamedPackedBlockFilters`
    /// shared out to at most `streamedWorkers` workers. `packedTiles` holds each (position, image)'s
    /// tiles packed for the kernel (`PackedGEMM.packColumns`, `channels × perImage` each, position-major).
    /// Each worker transforms a block into its scratch (`scratch + worker · streamedPackedScratchCount`),
    /// runs the block's products into its block of M, then `finish(worker, f, M row of f at position
    /// 0, position stride)` for each filter of the block.
    static func streamedPackedProducts(panels: UnsafePointer<Float>, channels: Int, filters: Int,
                                       packedTiles: UnsafePointer<Float>, tileCount: Int, perImage: Int, images: Int,
                                       scratch: UnsafeMutablePointer<Float>,
                                       finish: (_ worker: Int, _ filter: Int, _ m: UnsafePointer<Float>, _ positionStride: Int) -> Void) {
        guard let kernel = PackedGEMM.kernel else { preconditionFailure("Winograd: streamed F(4×4) without a packed kernel") }
        let positions = Variant.f4.positions
        let blockFilters = streamedPackedBlockFilters
        let blocks = (filters + blockFilters - 1) / blockFilters
        let perWorker = streamedPackedScratchCount(.f4, channels: channels, tileCount: tileCount)
        Parallel.forWorkers(of: blocks, work: filters * channels * tileCount, maximumWorkers: streamedWorkers) { worker, range in
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

/// One panel's 4 filters in Float for the streamed transform: `/` by a constant is a product
/// with its reciprocal (the divisions of `kernelF4` are by 4, 6, 12 and 24).
struct FloatLanes: TransformValue {
    var lanes: SIMD4<Float>
    init(_ lanes: SIMD4<Float>) { self.lanes = lanes }
    static func + (lhs: Self, rhs: Self) -> Self { Self(lhs.lanes + rhs.lanes) }
    static func - (lhs: Self, rhs: Self) -> Self { Self(lhs.lanes - rhs.lanes) }
    static func / (lhs: Self, rhs: Double) -> Self { Self(lhs.lanes * Float(1 / rhs)) }
    static prefix func - (operand: Self) -> Self { Self(-operand.lanes) }
}
