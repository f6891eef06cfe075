/// Streamed F(2×2, 3×3): the weights are transformed during the forward pass, a block of
/// filters at a time, instead of once at load. The layer holds only its plain weights (in
/// `reorderTapMajor` order), so it costs no memory beyond darknet's: `auto` gives it the layers whose
/// transformed weights do not fit the memory budget (yolov3's 1024 × 512 layers on the 13×13
/// grid, 33.6 MB each once transformed). Each worker transforms a block into its own scratch,
/// runs the block's 16 products into its own block of M and the block's output transform,
/// each while the previous step's data is still in its caches.
///
/// On yolov3's 13×13 × 512 → 1024 shape (2 threads, C prototype, caches flushed between runs):
/// im2col + GEMM 10.0 ms, streamed 8.8 ms, pre-transformed F(2×2) 7.3 ms. The transform is
/// about a fifth of the streamed time; without the pad in `streamedPositionStride` the 16
/// positions of a block fell in one cache set and it took four times as long. In the engine
/// (`benchmark`, alternating runs, medians of the layers' medians): 11.2 ms against 12.4 with
/// im2col on yolov3's 13×13 layers at 416, 18.4 against 22.2 on its 19×19 layers at 608.
///
/// The transform is done in Float (the load-time one in Double), so the results differ from
/// pre-transformed F(2×2)'s by rounding only. Blocks depend on the shape alone, so the bits
/// are the same whatever the thread count.
extension Winograd {
    /// Filters transformed and multiplied at a time (16 × 32 × C floats per worker: 1 MiB at C = 512).
    static let streamedBlockFilters = 32

    /// Most workers that share the streamed products (each holds its own blocks: 1.1 MiB at
    /// C = 512 on a 13×13 grid, so 4 of them fit where yolov3's workspace already is).
    static let streamedWorkers = 4

    /// Floats between the positions of a worker's block: 16 floats (one cache line) more than
    /// the block, so the 16 rows written together do not all map to one cache set.
    static func streamedPositionStride(channels: Int) -> Int { streamedBlockFilters * channels + 16 }

    /// Scratch floats of one streamed worker: its block's 16 transformed `32 × C` matrices and
    /// its block of M (16 positions × 32 filters × `tileCount` tiles).
    static func streamedScratchCount(channels: Int, tileCount: Int) -> Int {
        16 * streamedPositionStride(channels: channels) + 16 * streamedBlockFilters * tileCount
    }

    /// darknet's `filters × channels × 3 × 3` weights reordered tap-major in place, `filters × 9 ×
    /// channels`, so the transform reads each tap of 4 channels as one vector. Filters are split
    /// across the workers; each copies a filter's 9·C floats aside and writes them back in the
    /// new order (a second array of yolov3's four 18.9 MB layers took 130 ms to fault in and fill).
    static func reorderTapMajor(_ weights: inout [Float], filters: Int, channels: Int) {
        precondition(weights.count == filters * channels * 9, "reorderTapMajor: \(weights.count) weights for \(filters)×\(channels)×3×3")
        let perFilter = channels * 9
        weights.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let base = buffer.baseAddress!
            Parallel.forChunks(of: filters, work: filters * perFilter) { range in
                withUnsafeTemporaryAllocation(of: Float.self, capacity: perFilter) { aside in
                    let from = aside.baseAddress!
                    for f in range {
                        let to = base + f * perFilter
                        from.update(from: to, count: perFilter)
                        for tap in 0..<9 {
                            for c in 0..<channels { to[tap * channels + c] = from[c * 9 + tap] }
                        }
                    }
                }
            }
        }
    }

    /// `U = G g Gᵀ` (F(2×2), in Float) of `count` filters from `first`, read from tap-major
    /// weights: position ξ of filter `first + i`, channel c goes to `u[ξ·positionStride + i·channels + c]`,
    /// so `u + ξ·positionStride` is a row-major `count × channels` GEMM operand.
    static func transformBlockF2(_ taps: UnsafePointer<Float>, channels: Int, first: Int, count: Int,
                                 into u: UnsafeMutablePointer<Float>, positionStride: Int) {
        for i in 0..<count {
            let g = taps + (first + i) * 9 * channels
            let out = u + i * channels
            var c = 0
            while c + 4 <= channels {
                transformKernelsF2(g + c, channels, out + c, positionStride)
                c += 4
            }
            if c < channels {
                // The last channels through a 4-wide copy of their taps (on the stack).
                let rest = channels - c
                withUnsafeTemporaryAllocation(of: Float.self, capacity: 9 * 4 + 16 * 4) { local in
                    let l = local.baseAddress!
                    l.initialize(repeating: 0, count: 9 * 4)
                    for t in 0..<9 { for j in 0..<rest { l[t * 4 + j] = g[t * channels + c + j] } }
                    transformKernelsF2(l, 4, l + 36, 4)
                    for position in 0..<16 { for j in 0..<rest { out[position * positionStride + c + j] = l[36 + position * 4 + j] } }
                }
            }
        }
    }

    /// Four consecutive channels' kernels: tap t of channel j at `g[t·tapStride + j]`, position
    /// ξ at `out[ξ·positionStride + j]`. `U = G g Gᵀ` with Lavin's `G` rows (1, 0, 0),
    /// (½, ½, ½), (½, −½, ½), (0, 0, 1): row 0 of `G g` is the kernel's top row, row 3 its bottom
    /// row, rows 1 and 2 are (top + bottom ± middle)·½. Four lanes (one SSE register) keep the
    /// nine taps in registers; eight spilled to the stack.
    @inline(__always)
    private static func transformKernelsF2(_ g: UnsafePointer<Float>, _ tapStride: Int,
                                           _ out: UnsafeMutablePointer<Float>, _ positionStride: Int) {
        @inline(__always) func tap(_ t: Int) -> SIMD4<Float> {
            UnsafeRawPointer(g + t * tapStride).loadUnaligned(as: SIMD4<Float>.self)
        }
        @inline(__always) func row(_ r: Int, _ a: SIMD4<Float>, _ b: SIMD4<Float>, _ c: SIMD4<Float>) {
            @inline(__always) func put(_ column: Int, _ v: SIMD4<Float>) {
                UnsafeMutableRawPointer(out + (r * 4 + column) * positionStride).storeBytes(of: v, as: SIMD4<Float>.self)
            }
            let s = a + c
            put(0, a)
            put(1, (s + b) * 0.5)
            put(2, (s - b) * 0.5)
            put(3, c)
        }
        let t0 = tap(0), t1 = tap(1), t2 = tap(2), t3 = tap(3), t4 = tap(4), t5 = tap(5), t6 = tap(6), t7 = tap(7), t8 = tap(8)
        let s0 = t0 + t6, s1 = t1 + t7, s2 = t2 + t8
        row(0, t0, t1, t2)
        row(1, (s0 + t3) * 0.5, (s1 + t4) * 0.5, (s2 + t5) * 0.5)
        row(2, (s0 - t3) * 0.5, (s1 - t4) * 0.5, (s2 - t5) * 0.5)
        row(3, t6, t7, t8)
    }

    /// The streamed products of one pass: `filters` in blocks of `streamedBlockFilters` shared
    /// out to at most `streamedWorkers` workers. Each transforms its block into its scratch
    /// (`scratch + worker · streamedScratchCount`), runs `M[ξ] = U[ξ] · V[ξ]` for the block's
    /// rows, image by image, into its block of M, then `finish(worker, f, M row of f at
    /// position 0, position stride)` for each filter of the block.
    static func streamedProducts(taps: UnsafePointer<Float>, channels: Int, filters: Int, v: UnsafePointer<Float>,
                                 tileCount: Int, perImage: Int, images: Int, scratch: UnsafeMutablePointer<Float>,
                                 finish: (_ worker: Int, _ filter: Int, _ m: UnsafePointer<Float>, _ positionStride: Int) -> Void) {
        let blockFilters = streamedBlockFilters
        let blocks = (filters + blockFilters - 1) / blockFilters
        let stride = streamedPositionStride(channels: channels)
        let perWorker = streamedScratchCount(channels: channels, tileCount: tileCount)
        let mStride = blockFilters * tileCount
        Parallel.forWorkers(of: blocks, work: filters * channels * tileCount, maximumWorkers: streamedWorkers) { worker, range in
            let u = scratch + worker * perWorker
            let m = u + 16 * stride
            for block in range {
                let first = block * blockFilters, count = min(blockFilters, filters - first)
                transformBlockF2(taps, channels: channels, first: first, count: count, into: u, positionStride: stride)
                for position in 0..<16 {
                    for b in 0..<images {
                        GEMM.serial(m: count, n: perImage, k: channels, a: u + position * stride, lda: channels,
                                    b: v + position * channels * tileCount + b * perImage, ldb: tileCount,
                                    c: m + position * mStride + b * perImage, ldc: tileCount)
                    }
                }
                for i in 0..<count { finish(worker, first + i, m + i * tileCount, mStride) }
            }
        }
    }
}
