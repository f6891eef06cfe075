/// The products of a Winograd pass, for every variant (`Winograd`, `WinogradStride2`):
/// `M[ξ] (filters × tiles) = U[ξ] (filters × C) · V[ξ] (C × tiles)` for each transform position ξ.
package enum WinogradProducts {
    /// Every position (split across up to `threads` workers) and image: one call each, the same
    /// calls whatever the thread count and however many images share the pass, so an image's
    /// tiles get the bits they get alone. With `kernel`, each image's tiles of `V[ξ]` are packed
    /// into the worker's scratch (`scratch + worker · scratchSize`, at least `channels ·
    /// perImage` floats) and multiplied by the kernel on `U` packed at load; else one
    /// `GEMM.serial` on plain filter-major `U`. Image b's tiles are columns `b·perImage ..<
    /// (b + 1)·perImage` of each `V[ξ]` and `M[ξ]` (`tileCount` columns, positions apart by
    /// `channels · tileCount` and `filters · tileCount`).
    static func run(positions: Int, u: UnsafePointer<Float>, kernel: PackedGEMM.Kernel?, v: UnsafePointer<Float>,
                    m: UnsafeMutablePointer<Float>, filters: Int, channels: Int, tileCount: Int, perImage: Int, images: Int,
                    scratch: UnsafeMutablePointer<Float>, scratchSize: Int, threads: Int) {
        Parallel.forWorkers(of: positions, work: filters * channels * tileCount, threads: threads,
                            maximumWorkers: Winograd.maximumWorkers) { worker, range in
            let tiles = scratch + worker * scratchSize
            for position in range {
                let weights = u + position * filters * channels
                for b in 0..<images {
                    let operand = v + position * channels * tileCount + b * perImage
                    let product = m + position * filters * tileCount + b * perImage
                    guard let kernel else {
                        GEMM.serial(m: filters, n: perImage, k: channels, a: weights, lda: channels,
                                    b: operand, ldb: tileCount, c: product, ldc: tileCount)
                        continue
                    }
                    PackedGEMM.packColumns(kernel, operand, columns: perImage, k: channels, ldx: tileCount, into: tiles)
                    PackedGEMM.multiply(kernel, packedWeights: weights, rows: filters, rowRange: 0..<filters,
                                        packedColumns: tiles, columns: perImage, columnRange: 0..<perImage,
                                        k: channels, c: product, ldc: tileCount)
                }
            }
        }
    }

    /// Packs each position's `filters × channels` plane of `U` in place into the panel layout
    /// of `PackedGEMM.packWeights`, a position per worker through a copy aside.
    static func packPositions(_ u: UnsafeMutablePointer<Float>, positions: Int, filters: Int, channels: Int,
                              kernel: PackedGEMM.Kernel, threads: Int) {
        let plane = filters * channels
        nonisolated(unsafe) let u = u
        Parallel.forChunks(of: positions, work: positions * plane, threads: threads) { range in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: plane) { aside in
                for position in range {
                    let target = u + position * plane
                    aside.baseAddress!.update(from: target, count: plane)
                    PackedGEMM.packWeights(kernel, aside.baseAddress!, rows: filters, k: channels, ldw: channels, into: target)
                }
            }
        }
    }
}
