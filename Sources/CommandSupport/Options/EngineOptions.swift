import ArgumentParser
import Darknet

/// `--threads`, `--conv-algorithm`, `--gemm` and `--precision` with `--calibration`, side by
/// side: how the engine runs the network (`ExecutionOptions`), for the commands that let all be
/// chosen. A command that runs on the automatic convolution methods takes `ThreadsOption` alone.
package struct EngineOptions: ParsableArguments {
    @OptionGroup package var workers: ThreadsOption

    @OptionGroup package var convolution: ConvolutionAlgorithmOption<RunsConvolutions>

    @OptionGroup package var library: GEMMOption

    @OptionGroup package var arithmetic: PrecisionOption

    package init() {}

    package var threads: Int? { workers.threads }
    package var convolutionAlgorithm: ConvolutionAlgorithm { convolution.convAlgorithm }
    package var gemm: GEMMLibrary { library.gemm }
    /// The calibration file of `--precision int8`, nil for f32.
    package var calibration: String? { arithmetic.calibrationFile }
}
