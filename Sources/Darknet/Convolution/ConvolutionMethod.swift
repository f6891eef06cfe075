/// How a network's convolutions compute (`ExecutionOptions.convolutionAlgorithm`). darknet
/// always uses im2col + GEMM; the answers differ only by float rounding (see `Winograd`).
public enum ConvolutionAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// Per layer by shape and memory (`ModelDescription.convolutionMethods`): Winograd where it
    /// pays and fits twice the parameters, im2col + GEMM elsewhere.
    case auto
    /// darknet's method everywhere: im2col + GEMM (1×1 stride-1 layers multiply the input directly).
    case im2col
    /// Winograd F(4×4, 3×3) with weights transformed at load on every 3×3 stride-1 layer without
    /// groups (4× their weights), the stride-2 Winograd on every 3×3 stride-2 one (25/9 of
    /// them); im2col on the others.
    case winograd
    /// Winograd F(4×4, 3×3) with the weights transformed during each pass on every 3×3 stride-1
    /// layer without groups (darknet's memory; needs OpenBLAS's packed kernel, else those layers
    /// run `winograd`), the stride-2 Winograd on the stride-2 ones, as `winograd`.
    case winogradStreamed = "winograd-streamed"
}

/// What one convolution runs, as `summary --methods` and `benchmark` show it. Each is one case
/// of `PreparedConvolution`, with its weights in its own layout.
public enum ConvolutionMethod: String, Sendable, Hashable, CaseIterable {
    /// 1×1 stride-1 without padding: one GEMM on the input, no unfolding (`PointwiseConvolution`).
    case gemm
    /// darknet's im2col + GEMM, in blocks of output rows (`Im2colConvolution`).
    case im2col
    /// im2col + GEMM + epilogue band by band, each band on one worker: short, wide matrices
    /// such as a detector's first layers (`Im2colConvolution`, `Im2colBands`).
    case im2colBands = "im2col-bands"
    /// Winograd F(4×4, 3×3), weights transformed at load (`WinogradConvolution`).
    case winograd
    /// Winograd F(4×4, 3×3), weights transformed during each pass (`WinogradConvolution`).
    case winogradStreamed = "winograd-streamed"
    /// Winograd for 3×3 stride-2 layers in 2×2 output tiles, weights transformed at load
    /// (`WinogradStride2Convolution`).
    case winogradStride2 = "winograd-stride2"
    /// AlexeyAB's XNOR convolution (`xnor=1`): signs of weights and inputs, scaled by the
    /// filter's mean |w| (`XnorConvolution`); the only method such a layer runs.
    case xnor
    /// im2col + GEMM in 8-bit integers, for the layers a calibration marks
    /// (`Precision.int8`, `Int8Convolution`).
    case int8

    /// True for the Winograd methods.
    public var isWinograd: Bool { self == .winograd || self == .winogradStreamed || self == .winogradStride2 }

    /// Floats the method holds per 3×3 kernel (9 as darknet stores them; 36 or 25 transformed).
    var floatsPerKernel: Int {
        switch self {
        case .winograd: 36
        case .winogradStride2: 25
        case .gemm, .im2col, .im2colBands, .winogradStreamed, .xnor, .int8: 9
        }
    }
}

extension Convolutional {
    /// True when Winograd F(4×4, 3×3) can compute this layer: 3×3, stride 1, no dilation, no groups, not XNOR.
    public var winogradEligible: Bool { size == 3 && stride == 1 && strideY == 1 && dilation == 1 && groups == 1 && !xnor }
    /// True when `WinogradStride2` can compute this layer: 3×3, stride 2, no dilation, no groups, not XNOR.
    public var winogradStride2Eligible: Bool { size == 3 && stride == 2 && strideY == 2 && dilation == 1 && groups == 1 && !xnor }

    /// True when the products are a plain matrix product of weights and input (1×1, stride 1,
    /// no padding, not XNOR).
    public var isPointwise: Bool { size == 1 && stride == 1 && strideY == 1 && padding == 0 && !xnor }
}
