import Darknet

/// The options of every command that loads a model, as values: the network input size (nil
/// keeps the cfg's `[net]` width and height), whether a cfg warning is an error, the workers
/// (nil: one per core), the convolution methods, the f32 GEMM library and, for int8, the
/// calibration file. Each is parsed by one option group (`SizeOption`, `StrictOption`,
/// `ThreadsOption`, `ConvolutionAlgorithmOption`, `GEMMOption`, `PrecisionOption`;
/// `EngineOptions` gathers the last four)
/// that a command places where the option stands in its help; `ModelLoader` applies them.
package struct ModelOptions: Sendable, Hashable {
    package var size: Int?
    package var strict: Bool
    package var threads: Int?
    package var convolutionAlgorithm: ConvolutionAlgorithm
    /// `--gemm`: OpenBLAS or oneDNN for the f32 im2col and 1×1 products.
    package var gemm: GEMMLibrary
    /// The calibration file of `--precision int8`; nil runs f32.
    package var calibration: String?

    package init(size: Int? = nil, strict: Bool = false, threads: Int? = nil,
                 convolutionAlgorithm: ConvolutionAlgorithm = .auto, gemm: GEMMLibrary = .openblas, calibration: String? = nil) {
        self.size = size
        self.strict = strict
        self.threads = threads
        self.convolutionAlgorithm = convolutionAlgorithm
        self.gemm = gemm
        self.calibration = calibration
    }
}
