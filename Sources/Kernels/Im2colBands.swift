/// im2col + GEMM + epilogue band by band, each band on one worker, for convolutions whose
/// unfolded matrix is short and wide (few rows `k = channels·size²`, many output columns): the
/// first layer of every darknet detector (`k` = 27 on an RGB image) and the first downsampling
/// layers (yolov3's 3×3/2 layers 1 and 5 at 416, `k` = 288 and 576).
///
/// Each worker takes the next band of output rows, unfolds it into its own slice of the
/// workspace, multiplies it with one single-threaded sgemm (`filters × k` · `k × band`) and
/// finishes it (bias, activation, and the 2×2 pool that follows when there is one), while the
/// band is still in its caches. The whole-matrix path instead writes the unfolded block to
/// memory, reads it back in the GEMM, and writes the output before the epilogue reads it: on
/// yolov3-tiny's first layer bands save about a third of the layer's time (docs/bench-log.md).
///
/// Each band's product is OpenBLAS's direct kernel where there is one (AVX-512 cores): it reads
/// the band where it lies, without packing it, which on the 3×3/2 layers of 16 and 32 channels
/// (`k` = 144, 288) beats packing it for the packed kernel (docs/bench-log.md). Without it, a
/// band of at least `packedMinimumK` rows is multiplied by the packed
/// kernel (`PackedGEMM`) on weights packed at load, `packedColumnBlock` columns at a time, each
/// block packed by OpenBLAS's own copy routine into the worker's scratch (as
/// `GEMM.multiplyPacked` does); shallower bands by `cblas_sgemm`.
///
/// Only short matrices qualify: a band must hold `Blocking.bandMinimumColumns` output columns
/// within `Blocking.bandFloats`, or its GEMM gets too thin; deeper layers gain nothing.
///
/// Bits: each band is one sgemm call (a pooled band, one call per block of `pooledRows` rows)
/// whose width is fixed by the shape, and each band's columns are computed only by that call,
/// so the output does not depend on the thread count.
package enum Im2colBands {
    /// Most workers sharing the bands (each has its own slice of the workspace).
    package static let maximumWorkers = 8

    /// Output rows per band, or nil when the matrix is not short enough for bands (or is one
    /// band: nothing to share out). Even when at least 2 fit, so a 2×2 pool finds whole pairs
    /// of rows in every band of an even output.
    ///
    /// The most rows that fit in `bandFloats`, cut down to `outHeight / bandMinimumCount` rows
    /// where bands that short still hold `bandMinimumColumns` columns, so that the workers share
    /// them evenly: a few large bands split unevenly between two workers (5 bands of 46 rows
    /// on yolov7-tiny's first layer: 3 on one, 2 on the other), many small ones do not
    /// (docs/bench-log.md).
    package static func bandRows(_ g: ConvolutionGeometry, _ blocking: Blocking) -> Int? {
        let even = { (rows: Int) in rows >= 2 ? rows & ~1 : rows }
        let most = even(max(1, blocking.bandFloats / max(1, g.k * g.outWidth)))
        guard most * g.outWidth >= blocking.bandMinimumColumns, most < g.outHeight else { return nil }
        // The fewest rows that keep the columns, even and at least a pool's pair (`most`, which
        // has as many or is 1, caps them).
        let wide = (blocking.bandMinimumColumns + g.outWidth - 1) / g.outWidth
        let fewest = max(2, wide + wide % 2)
        return min(most, max(fewest, even(g.outHeight / max(1, blocking.bandMinimumCount))))
    }

    /// Workspace floats for `bandRows` rows a band (one band per worker), each worker's block of
    /// `pooledRows` unfinished output rows and, with `packed` weights, its block of packed columns.
    package static func workspaceCount(_ g: ConvolutionGeometry, bandRows: Int, packed: Bool) -> Int {
        maximumWorkers * ((g.k * bandRows + g.filters * pooledRows(g, bandRows: bandRows)) * g.outWidth
            + (packed ? packedScratchCount(g) : 0))
    }

    /// Floats of a worker's block of packed columns.
    static func packedScratchCount(_ g: ConvolutionGeometry) -> Int { packedColumnBlock * min(g.k, PackedGEMM.kBlock) }

    /// Columns of a band packed and multiplied at a time (two panels of an AVX-512 kernel; 37 KB
    /// at `k` = 288): larger blocks ran no faster and take more workspace (docs/bench-log.md).
    static let packedColumnBlock = 32

    /// Fewest matrix rows (`k`) for which bands take weights packed at load and the packed
    /// kernel, where there is one and no direct kernel (see above).
    package static let packedMinimumK = 64

    /// True when bands of group shape `g` multiply with the packed kernel `kernel`: it has no
    /// direct routine, and `g` has at least `packedMinimumK` rows.
    package static func packs(_ g: ConvolutionGeometry, kernel: PackedGEMM.Kernel?) -> Bool {
        guard let kernel else { return false }
        return kernel.direct == nil && g.k >= packedMinimumK
    }

    /// Output rows multiplied at a time when a pool follows: an even count of at least
    /// `pooledColumns` columns (or the band), so the unfinished block stays in the worker's caches.
    static func pooledRows(_ g: ConvolutionGeometry, bandRows: Int) -> Int {
        min(bandRows, 2 * max(1, (pooledColumns + 2 * g.outWidth - 1) / (2 * g.outWidth)))
    }

    /// Fewest columns of a pooled block's product: yolov3-tiny's first layer multiplies 6 rows
    /// of 416 at a time, a block of 160 KB, in L2 beside the band.
    static let pooledColumns = 2048

    /// Every band of every image: `input` (`g.channels` planes a image) → `output` (`g.filters`
    /// planes), `weights` `filters × k`, each finished row of a band through `epilogue`. With
    /// `pooled` (a 2×2 stride-2 pool of the output, `bandRows` even) the band is multiplied
    /// `pooledRows` rows at a time into the worker's block, each pair of rows pooled into
    /// `pooled` as it is finished (`Epilogue.finishPooled`), and `output` is not written. Each
    /// product is OpenBLAS's direct kernel when `direct` is given (the band and the weights read
    /// where they lie, the output written without being zeroed first); when `packed` is given
    /// (`weights` packed for it, `packs(g)`), by that kernel in blocks of packed columns; else
    /// each product is one `cblas_sgemm`, or one `dnnl_sgemm` when `onednn` is given.
    /// Returns the workers' mean seconds in im2col and in the epilogue when `timed`, else 0.
    package static func forward(_ g: ConvolutionGeometry, input: TensorView, images: Int, weights: UnsafePointer<Float>,
                                output: MutableTensorView, epilogue: Epilogue, pooled: MutableTensorView?, bandRows: Int,
                                workspace: UnsafeMutablePointer<Float>, direct: PackedGEMM.DirectFunction? = nil,
                                packed: PackedGEMM.Kernel? = nil, onednn: OneDNN.Library? = nil,
                                threads: Int, timed: Bool)
        -> (im2col: Double, epilogue: Double) {
        precondition(packed == nil || packs(g, kernel: packed), "Im2colBands: weights packed for a band that does not pack")
        let bands = (g.outHeight + bandRows - 1) / bandRows
        let perWorker = g.k * bandRows * g.outWidth
        let workers = min(threads, maximumWorkers, images * bands)
        let pooledRows = pooledRows(g, bandRows: bandRows), pooledBlockCount = g.filters * pooledRows * g.outWidth
        let pooledBlock = workspace + maximumWorkers * perWorker
        let packedColumns = pooledBlock + maximumWorkers * pooledBlockCount, packedColumnsCount = packedScratchCount(g)
        /// `C[filters × columns] = weights · B`, B the `k × columns` block at `b` (`ldb`).
        func multiply(b: UnsafePointer<Float>, ldb: Int, columns: Int, c: UnsafeMutablePointer<Float>, ldc: Int, worker: Int) {
            if let packed {
                let scratch = packedColumns + worker * packedColumnsCount
                for first in Swift.stride(from: 0, to: columns, by: packedColumnBlock) {
                    PackedGEMM.multiply(packed, packedWeights: weights, rows: g.filters, rowRange: 0..<g.filters, b: b, ldb: ldb,
                                        columns: first..<min(columns, first + packedColumnBlock), k: g.k,
                                        scratch: scratch, c: c, ldc: ldc)
                }
            } else if let direct {
                PackedGEMM.multiplyDirect(direct, weights: weights, ldw: g.k, rows: 0..<g.filters, b: b, ldb: ldb,
                                          columns: 0..<columns, k: g.k, c: c, ldc: ldc)
            } else {
                GEMM.serial(m: g.filters, n: columns, k: g.k, a: weights, lda: g.k, b: b, ldb: ldb, c: c, ldc: ldc, onednn: onednn)
            }
        }
        return withUnsafeTemporaryAllocation(of: (Double, Double).self, capacity: workers) { seconds in
            seconds.initialize(repeating: (0, 0))
            nonisolated(unsafe) let seconds = seconds
            Parallel.forWorkers(of: images * bands, work: g.filters * g.k * g.spatial * images, threads: workers) { worker, range in
                let scratch = workspace + worker * perWorker
                for item in range {
                    let (image, band) = (item / bands, item % bands)
                    let rows = band * bandRows..<min(g.outHeight, (band + 1) * bandRows)
                    let columns = rows.count * g.outWidth
                    let start = timed ? ProfileClock.now() : 0
                    Im2col.unfoldSerially(input.plane(image: image, channel: 0), channels: g.channels, height: g.height,
                                          width: g.width, size: g.size, stride: g.strideX, pad: g.pad * g.dilation,
                                          strideY: g.strideY, dilation: g.dilation, outputRows: rows,
                                          channelStride: input.channelStride, into: scratch)
                    let unfolded = timed ? ProfileClock.now() : 0
                    if let pooled {
                        let block = pooledBlock + worker * pooledBlockCount
                        for first in Swift.stride(from: 0, to: rows.count, by: pooledRows) {
                            let blockRows = min(pooledRows, rows.count - first), blockColumns = blockRows * g.outWidth
                            multiply(b: scratch + first * g.outWidth, ldb: columns, columns: blockColumns, c: block,
                                     ldc: blockColumns, worker: worker)
                            let multiplied = timed ? ProfileClock.now() : 0
                            for filter in 0..<g.filters {
                                let target = pooled.plane(image: image, channel: filter)
                                    + (rows.lowerBound + first) / 2 * pooled.width
                                for pair in 0..<(blockRows / 2) {
                                    epilogue.finishPooled(block + filter * blockColumns + 2 * pair * g.outWidth,
                                                          width: g.outWidth, filter: filter, into: target + pair * pooled.width)
                                }
                            }
                            if timed { seconds[worker].1 += ProfileClock.seconds(from: multiplied, to: ProfileClock.now()) }
                        }
                    } else {
                        let c = output.plane(image: image, channel: 0) + rows.lowerBound * g.outWidth
                        multiply(b: scratch, ldb: columns, columns: columns, c: c, ldc: output.channelStride, worker: worker)
                        let multiplied = timed ? ProfileClock.now() : 0
                        for filter in 0..<g.filters {
                            let row = c + filter * output.channelStride
                            epilogue.finish(row, count: columns, filter: filter, offset: output.base.distance(to: row))
                        }
                        if timed { seconds[worker].1 += ProfileClock.seconds(from: multiplied, to: ProfileClock.now()) }
                    }
                    if timed { seconds[worker].0 += ProfileClock.seconds(from: start, to: unfolded) }
                }
            }
            let n = Double(workers)
            return (seconds.reduce(0) { $0 + $1.0 } / n, seconds.reduce(0) { $0 + $1.1 } / n)
        }
    }
}
