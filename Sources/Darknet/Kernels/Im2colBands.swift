import Dispatch

/// im2col + GEMM + epilogue band by band, each band on one worker, for convolutions whose
/// unfolded matrix is short and wide (few rows `k = channels·size²`, many output columns): the
/// first layer of every darknet detector (`k` = 27 on an RGB image) and the first downsampling
/// layers (yolov3's 3×3/2 layers 1 and 5 at 416, `k` = 288 and 576).
///
/// Each worker takes the next band of output rows, unfolds it into its own slice of the
/// workspace, multiplies it with one single-threaded sgemm (`filters × k` · `k × band`) and adds
/// bias + activation, while the band is still in its caches. The whole-matrix path instead
/// wrote an 8 MB im2col block to memory, read it back in the GEMM, and wrote the output before
/// the epilogue read it again: yolov3-tiny's layer 0 (416×416×3 → 16) took 5.1 ms there against
/// 3.3–3.6 ms in bands (medians of 8 alternating `benchmark` processes, 2 threads, the shared Zen
/// machine); yolov3's layer 0 8.5 against 6.9–7.2 ms. With 1 MB bands of at least 400 columns,
/// yolov3's layer 1 (832 columns a band) went from 20.4 to 16.8–17.1 ms in a busy hour and from
/// 15.0 to 14.1 ms in a quiet one, layer 5 (416 columns) from 12.1 to 11.2 ms (8 alternating
/// processes each).
///
/// Only short matrices qualify: a band must hold `minimumColumns` output columns within
/// `bandFloats`, or its GEMM gets too thin. yolov3's layer 12 (`k` = 1152, 208 columns a band)
/// gained nothing measurable, so deeper layers keep the whole-matrix path.
///
/// Bits: each band is one sgemm call whose width is fixed by the shape, and each band's
/// columns are computed only by that call, so the output does not depend on the thread count.
enum Im2colBands {
    /// Floats of one worker's band of the im2col matrix (1 MB, a core's L2; 2 MB bands ran no
    /// faster). Eight workers' bands take no more than yolov3's Winograd workspace.
    /// A var so tests can force bands onto small shapes.
    nonisolated(unsafe) static var bandFloats = 1 << 18
    /// Fewest output columns a band may have.
    nonisolated(unsafe) static var minimumColumns = 400
    /// Most workers sharing the bands (each has its own slice of the workspace).
    static let maximumWorkers = 8

    /// Output rows per band, or nil when the matrix is not short enough for bands (or is one
    /// band: nothing to share out). Even when at least 2 fit, so a fused 2×2 pool finds whole
    /// pairs of rows in every band of an even output (`Network.fusedPools`).
    static func bandRows(k: Int, outHeight: Int, outWidth: Int) -> Int? {
        let fitting = max(1, bandFloats / max(1, k * outWidth))
        let rows = fitting >= 2 ? fitting & ~1 : fitting
        guard rows * outWidth >= minimumColumns, rows < outHeight else { return nil }
        return rows
    }

    /// Workspace floats for the bands (one band per worker), or nil when bands are not used.
    static func workspaceCount(k: Int, outHeight: Int, outWidth: Int) -> Int? {
        guard let rows = bandRows(k: k, outHeight: outHeight, outWidth: outWidth) else { return nil }
        return maximumWorkers * k * rows * outWidth
    }

    /// What one convolution group's bands need: its geometry and operands.
    struct Group {
        var input: UnsafePointer<Float>
        var channels, height, width: Int
        /// Distance between the input's channel planes (`batch · height · width` in a batch).
        var channelStride: Int
        var size, stride, strideY, pad, dilation: Int
        var weights: UnsafePointer<Float>
        var filters, k: Int
        var output: UnsafeMutablePointer<Float>
        var outHeight, outWidth: Int
        /// Distance between the output's filter planes (`batch · outHeight · outWidth`).
        var ldc: Int
        var batch: Int
    }

    /// Runs every band of every image of `group`: input `channels × batch × height × width`
    /// (channel-major) → output `filters × batch × outHeight × outWidth`, `epilogue(filter,
    /// start, count)` on each finished row of a band. `bandRows` is `bandRows(…)`'s answer.
    /// Returns the workers' mean seconds in im2col and in the epilogue when `timed`, else 0.
    static func forward(_ group: Group, bandRows: Int, workspace: UnsafeMutablePointer<Float>, timed: Bool,
                        epilogue: GEMM.RowEpilogue) -> (im2col: Double, epilogue: Double) {
        let bands = (group.outHeight + bandRows - 1) / bandRows
        let perWorker = group.k * bandRows * group.outWidth
        let (inputPlane, spatial) = (group.height * group.width, group.outHeight * group.outWidth)
        let workers = min(GEMM.threads, maximumWorkers, group.batch * bands)
        return withUnsafeTemporaryAllocation(of: (Double, Double).self, capacity: workers) { seconds in
            seconds.initialize(repeating: (0, 0))
            nonisolated(unsafe) let seconds = seconds
            Parallel.forWorkers(of: group.batch * bands, work: group.filters * group.k * spatial * group.batch,
                                maximumWorkers: workers) { worker, range in
                let scratch = workspace + worker * perWorker
                for item in range {
                    let (image, band) = (item / bands, item % bands)
                    let rows = band * bandRows..<min(group.outHeight, (band + 1) * bandRows)
                    let columns = rows.count * group.outWidth
                    let start = timed ? ProfileClock.now() : 0
                    Im2col.unfoldSerially(group.input + image * inputPlane, channels: group.channels, height: group.height,
                                          width: group.width, size: group.size, stride: group.stride, pad: group.pad,
                                          strideY: group.strideY, dilation: group.dilation, outputRows: rows,
                                          channelStride: group.channelStride, into: scratch)
                    let unfolded = timed ? ProfileClock.now() : 0
                    let c = group.output + image * spatial + rows.lowerBound * group.outWidth
                    GEMM.serial(m: group.filters, n: columns, k: group.k, a: group.weights, lda: group.k, b: scratch,
                                ldb: columns, c: c, ldc: group.ldc)
                    let multiplied = timed ? ProfileClock.now() : 0
                    for filter in 0..<group.filters { epilogue(filter, c + filter * group.ldc, columns) }
                    if timed {
                        seconds[worker].0 += ProfileClock.seconds(from: start, to: unfolded)
                        seconds[worker].1 += ProfileClock.seconds(from: multiplied, to: ProfileClock.now())
                    }
                }
            }
            let n = Double(workers)
            return (seconds.reduce(0) { $0 + $1.0 } / n, seconds.reduce(0) { $0 + $1.1 } / n)
        }
    }
}
