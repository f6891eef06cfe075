import Kernels

/// The library the f32 im2col and 1×1 convolutions multiply on (`ExecutionOptions.gemm`).
/// Either way the engine cuts each product into parts by its shape alone and runs each part as
/// one single-threaded call on its own workers (`GEMM`), so the bits are the same on any thread
/// count and run. Winograd layers, connected and local layers stay on OpenBLAS.
public enum GEMMLibrary: String, Sendable, Hashable, CaseIterable {
    /// OpenBLAS: `cblas_sgemm`, and its own kernel driven with weights packed at load where the
    /// engine knows it (`ExecutionOptions.usesPackedKernel`). The default.
    case openblas
    /// oneDNN's `dnnl_sgemm` (`OneDNN`, loaded at run time as int8 loads it), told to use one
    /// thread on every call; the weights stay in darknet's layout. Its results differ from
    /// OpenBLAS's by float rounding only.
    case onednn
}

extension GEMMLibrary {
    /// `method` as `summary --methods` and `benchmark` name it: on oneDNN, the routes whose
    /// products run on it carry `+dnnl_sgemm` (`im2col+dnnl_sgemm`, `gemm+dnnl_sgemm`).
    public func routeName(_ method: ConvolutionMethod) -> String {
        guard self == .onednn else { return method.rawValue }
        switch method {
        case .gemm, .im2col, .im2colBands: return method.rawValue + "+dnnl_sgemm"
        case .winograd, .winogradStreamed, .winogradStride2, .xnor, .int8: return method.rawValue
        }
    }

    /// What `onednn` runs on in this process (`dnnl_sgemm of oneDNN 2.6.3 (libdnnl.so.2), avx512_core_vnni`),
    /// or why it cannot run.
    public static var onednnSupport: Result<String, NetworkError> {
        switch OneDNN.sgemmLibrary {
        case .success(let library): .success("dnnl_sgemm of oneDNN \(library.version) (\(library.file)), \(library.isa)")
        case .failure(let unavailable): .failure(.oneDNNUnavailable(reason: unavailable.reason))
        }
    }

    /// For `onednn`: that oneDNN loaded with `dnnl_sgemm` (the reason names what to install);
    /// nothing for `openblas`. The int8 self-check does not matter here.
    func check() throws(NetworkError) {
        guard self == .onednn else { return }
        if case .failure(let unavailable) = OneDNN.sgemmLibrary { throw .oneDNNUnavailable(reason: unavailable.reason) }
    }
}
