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
/// column is summed over the same `k` blocks in the same order.
public enum GEMM {
    /// Splits the columns of `C` across `threads` workers when the product is large.
    public static func multiply(m: Int, n: Int, k: Int,
                                a: UnsafePointer<Float>, lda: Int,
                                b: UnsafePointer<Float>, ldb: Int,
                                c: UnsafeMutablePointer<Float>, ldc: Int,
                                accumulate: Bool = false) {
        let workers = min(threads, n / 64)
        guard workers > 1, m * n * k >= 1 << 21 else {
            serial(m: m, n: n, k: k, a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: ldc, accumulate: accumulate)
            return
        }
        nonisolated(unsafe) let (a, b, c) = (a, b, c)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            // Column ranges rounded to 16 floats so each worker's stores stay cache-line aligned.
            let start = (n * worker / workers) & ~15
            let end = worker == workers - 1 ? n : (n * (worker + 1) / workers) & ~15
            if start < end {
                serial(m: m, n: end - start, k: k, a: a, lda: lda, b: b + start, ldb: ldb, c: c + start, ldc: ldc,
                       accumulate: accumulate)
            }
        }
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
