import COpenBLAS

/// The one place the engine calls BLAS: `C[m×n] = A[m×k] · B[k×n] (+ C when accumulate)`,
/// all row-major and contiguous (darknet's `gemm(0,0,…)` as convolutions use it).
public enum GEMM {
    public static func multiply(m: Int, n: Int, k: Int,
                                a: UnsafePointer<Float>, lda: Int,
                                b: UnsafePointer<Float>, ldb: Int,
                                c: UnsafeMutablePointer<Float>, ldc: Int,
                                accumulate: Bool = false) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans,
                    Int32(m), Int32(n), Int32(k), 1, a, Int32(lda), b, Int32(ldb),
                    accumulate ? 1 : 0, c, Int32(ldc))
    }

    /// Threads OpenBLAS uses for each GEMM.
    public static var threads: Int {
        get { Int(openblas_get_num_threads()) }
        set { openblas_set_num_threads(Int32(max(1, newValue))) }
    }

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
