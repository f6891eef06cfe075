import Darknet

/// The options of every command that loads a model, as values: the network input size (nil
/// keeps the cfg's `[net]` width and height), whether a cfg warning is an error, the workers
/// (nil: one per core), the convolution methods and, for int8, the calibration file. Each is
/// parsed by one option group (`SizeOption`, `StrictOption`, `ThreadsOption`,
/// `ConvolutionAlgorithmOption`, `PrecisionOption`; `EngineOptions` gathers the last three)
/// that a command places where the option stands in its help; `ModelLoader` applies them.
package struct ModelOptions: Sendable, Hashable {
    package var size: Int?
    package var strict: Bool
    package var threads: Int?
    package var convolutionAlgorithm: ConvolutionAlgorithm
    /// The calibration file of `--precision int8`; nil runs f32.
    package var calibration: String?

    package init(size: Int? = nil, strict: Bool = false, threads: Int? = nil,
                 convolutionAlgorithm: ConvolutionAlgorithm = .auto, calibration: String? = nil) {
        self.size = size
        self.strict = strict
        self.threads = threads
        self.convolutionAlgorithm = convolutionAlgorithm
        self.calibration = calibration
    }
}
