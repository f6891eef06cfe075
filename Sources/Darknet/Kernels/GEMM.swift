import COpenBLAS
import Dispatch

/// The one place the engine calls BLAS: `C[m×n] = A[m×k] · B[k×n] (+ C when accumulate)`,
/// all row-major and contiguous (darknet's `gemm(0,0,…)` as convolutions use it).
///
/// Threads: OpenBLAS itself runs single-threaded; the engine splits work across `threads`
/// workers of its own (`DispatchQueue.concurrentPerform`). OpenBLAS's own worker threads spin
/// (`sched_yield`) between calls and stole the cores from the Swift loops that run between
/// GEMMs (im2col, Winograd transforms, epilogues); with one pool for everything nothing
/// oversubscribes the cores. A split GEMM gives the same bits as an unsplit one: each output
/// element is summed over the same `k` blocks in the same order.
public enum GEMM {
    /// Splits `C` across `threads` workers when the product is large: by columns when there are
    /// many (each worker packs all of A once), by rows when there are few (thin GEMMs such as
    /// 13×13 layers: 1024×169×4608 ran 100 vs 98 GFLOPS, 512×169×2304 150 vs 79 on 2 cores,
    /// measured with single-threaded OpenBLAS calls on two threads).
    ///
    /// `epilogue` runs on each worker's part of C right after its product, while that part is
    /// still in the worker's caches (the convolutions' bias + activation: a separate pass split
    /// by rows read half of each part from the other core). It sees every element of C exactly
    /// once; it is non-escaping, so passing one allocates nothing. Returns the mean seconds the
    /// workers spent in it when `timeEpilogue` (the profiler's epilogue phase), else 0.
    @discardableResult
    public static func multiply(m: Int, n: Int, k: Int,
                                a: UnsafePointer<Float>, lda: Int,
                                b: UnsafePointer<Float>, ldb: Int,
                                c: UnsafeMutablePointer<Float>, ldc: Int,
                                accumulate: Bool = false, timeEpilogue: Bool = false,
                                epilogue: RowEpilogue = { _, _, _ in }) -> Double {
        let byRows = n < 512
        let workers = min(threads, (byRows ? m : n) / 32)
        guard workers > 1, m * n * k >= 1 << 21 else {
            serial(m: m, n: n, k: k, a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: ldc, accumulate: accumulate)
            return run(epilogue, rows: 0..<m, columns: 0..<n, c: c, ldc: ldc, timed: timeEpilogue)
        }
        nonisolated(unsafe) let (a, b, c) = (a, b, c)
        // The workers are done when `concurrentPerform` returns, so the closure never escapes.
        return withoutActuallyEscaping(epilogue) { epilogue in
            nonisolated(unsafe) let epilogue = epilogue
            return withUnsafeTemporaryAllocation(of: Double.self, capacity: workers) { seconds in
                seconds.initialize(repeating: 0)
                nonisolated(unsafe) let seconds = seconds
                DispatchQueue.concurrentPerform(iterations: workers) { worker in
                    // Ranges rounded to 16 so each worker's part stays cache-line and kernel-block aligned.
                    let total = byRows ? m : n
                    let start = (total * worker / workers) & ~15
                    let end = worker == workers - 1 ? total : (total * (worker + 1) / workers) & ~15
                    guard start < end else { return }
                    if byRows {
                        serial(m: end - start, n: n, k: k, a: a + start * lda, lda: lda, b: b, ldb: ldb,
                               c: c + start * ldc, ldc: ldc, accumulate: accumulate)
                    } else {
                        serial(m: m, n: end - start, k: k, a: a, lda: lda, b: b + start, ldb: ldb, c: c + start, ldc: ldc,
                               accumulate: accumulate)
                    }
                    seconds[worker] = run(epilogue, rows: byRows ? start..<end : 0..<m, columns: byRows ? 0..<n : start..<end,
                                          c: c, ldc: ldc, timed: timeEpilogue)
                }
                return seconds.reduce(0, +) / Double(workers)
            }
        }
    }

    /// Work done on finished rows of C: `(row, first element, count)` for each row segment of
    /// one worker's part (`multiply`'s `epilogue`).
    public typealias RowEpilogue = (_ row: Int, _ start: UnsafeMutablePointer<Float>, _ count: Int) -> Void

    private static func run(_ epilogue: RowEpilogue, rows: Range<Int>, columns: Range<Int>,
                            c: UnsafeMutablePointer<Float>, ldc: Int, timed: Bool) -> Double {
        let start = timed ? ProfileClock.now() : 0
        for row in rows { epilogue(row, c + row * ldc + columns.lowerBound, columns.count) }
        return timed ? ProfileClock.seconds(from: start, to: ProfileClock.now()) : 0
    }

    /// One single-threaded sgemm on the calling thread (for callers that parallelise themselves).
    public static func serial(m: Int, n: Int, k: Int,
                              a: UnsafePointer<Float>, lda: Int,
                              b: UnsafePointer<Float>, ldb: Int,
                              c: UnsafeMutablePointer<Float>, ldc: Int,
                              accumulate: Bool = false) {
        _ = blasSingleThreaded
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans,
                    Int32(m), Int32(n), Int32(k), 1, a, Int32(lda), b, Int32(ldb),
                    accumulate ? 1 : 0, c, Int32(ldc))
    }

    /// Workers for GEMMs and the engine's parallel loops (`--threads`). Defaults to what
    /// OpenBLAS would have used (one per core, or `OPENBLAS_NUM_THREADS`).
    public static var threads: Int {
        get { storedThreads }
        set { storedThreads = max(1, newValue) }
    }

    nonisolated(unsafe) private static var storedThreads = defaultThreads
    private static let defaultThreads = max(1, Int(openblas_get_num_threads()))
    /// Done once, before the first sgemm: OpenBLAS's own threads are never started.
    private static let blasSingleThreaded: Void = {
        _ = defaultThreads
        openblas_set_num_threads(1)
    }()

    /// OpenBLAS's name for the kernel it picked for this CPU (`Haswell`, `SkylakeX`, `Zen`…).
    public static var coreName: String {
        guard let name = openblas_get_corename() else { return "unknown" }
        return String(cString: name)
    }

    /// OpenBLAS's build configuration string.
    public static var configuration: String {
        guard let config = openblas_get_config() else { return "unknown" }
        return String(cString: config)
    }
}
