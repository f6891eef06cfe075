import Kernels

/// The sizes the kernels cut their work into (`Kernels.Blocking`).
public typealias Blocking = Kernels.Blocking

/// How a network runs: fixed when a `PreparedModel` (and so a `Network` or a `Detector`) is made,
/// and passed to every forward pass. Two models prepared with different options run side by
/// side in one process, each with its own.
public struct ExecutionOptions: Sendable, Hashable {
    /// Workers for the GEMMs and the parallel loops (the calling thread is one of them); at
    /// least 1. Defaults to what OpenBLAS would have used: one per core, or `OPENBLAS_NUM_THREADS`
    /// (at most `maximumThreads`). More than `maximumThreads` makes `PreparedModel` throw
    /// `NetworkError.tooManyThreads`.
    public var threads: Int
    /// Most workers a network can use: 511 (the worker pool's limit).
    public static let maximumThreads = KernelContext.maximumThreads
    /// How convolutions compute (`auto`: Winograd where it pays, im2col + GEMM elsewhere).
    public var convolutionAlgorithm: ConvolutionAlgorithm
    /// Drive OpenBLAS's own sgemm kernel with operands packed once, where this OpenBLAS has one
    /// the engine knows (`packedKernel`); false: `cblas_sgemm` only (as on other BLAS libraries).
    public var usesPackedKernel: Bool
    /// The sizes the kernels cut their work into (tests make them small).
    public var blocking: Blocking
    /// f32, or int8 on the layers a calibration marks (`Precision`).
    public var precision: Precision
    /// The library the f32 im2col and 1×1 products run on (`GEMMLibrary`; OpenBLAS by default).
    public var gemm: GEMMLibrary
    /// Let OpenBLAS's direct kernel multiply where the engine would take it (AVX-512 cores);
    /// tests turn it off to run the packed routes it stands in for.
    var usesDirectKernel = true

    public init(threads: Int? = nil, convolutionAlgorithm: ConvolutionAlgorithm = .auto, usesPackedKernel: Bool = true,
                blocking: Blocking = Blocking(), precision: Precision = .f32, gemm: GEMMLibrary = .openblas) {
        self.threads = max(1, threads ?? min(GEMM.defaultThreads, Self.maximumThreads))
        self.convolutionAlgorithm = convolutionAlgorithm
        self.usesPackedKernel = usesPackedKernel
        self.blocking = blocking
        self.precision = precision
        self.gemm = gemm
    }

    /// What the kernels are told on every call.
    var kernels: KernelContext {
        var packed = usesPackedKernel ? PackedGEMM.kernel : nil
        if !usesDirectKernel { packed?.direct = nil }
        return KernelContext(threads: threads, packed: packed, blocking: blocking,
                             onednn: gemm == .onednn ? try? OneDNN.sgemmLibrary.get() : nil)
    }

    /// `method` as `summary --methods` and `benchmark` name it (`GEMMLibrary.routeName`).
    public func routeName(_ method: ConvolutionMethod) -> String { gemm.routeName(method) }

    /// The packed sgemm kernel these options drive (`sgemm_kernel_COOPERLAKE (16×4)`), nil when
    /// they call `cblas_sgemm` only.
    public var packedKernel: String? { kernels.packed?.description }
}

/// Facts about the BLAS library the engine runs on.
public enum BLAS {
    /// The OpenBLAS kernel the engine runs on (`Haswell`, `SkylakeX`, `Zen`…).
    public static var coreName: String { GEMM.coreName }
    /// Why that kernel is not the one OpenBLAS picked for this CPU (its table is older than the
    /// CPU), or nil when it is OpenBLAS's own pick.
    public static var coreNote: String? { BLASCore.choice.note }
    /// OpenBLAS's build configuration string.
    public static var configuration: String { GEMM.configuration }
    /// The packed sgemm kernel the engine can drive on this machine, nil when there is none.
    public static var packedKernel: String? { PackedGEMM.kernel?.description }

    /// One `n × n × n` single-precision product on `threads` workers, as the convolutions run
    /// theirs (`benchmark --peak` times it to measure the machine's sgemm speed).
    public static func squareProduct(n: Int, threads: Int) {
        let a = [Float](repeating: 0.5, count: n * n), b = [Float](repeating: 0.25, count: n * n)
        var c = [Float](repeating: 0, count: n * n)
        GEMM.multiply(m: n, n: n, k: n, a: a, lda: n, b: b, ldb: n, c: &c, ldc: n, threads: threads)
    }
}
