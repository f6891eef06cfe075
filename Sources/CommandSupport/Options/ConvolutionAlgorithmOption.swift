import ArgumentParser
import Darknet

/// `--conv-algorithm`: how the convolutions run (`ExecutionOptions.convolutionAlgorithm`).
/// Declared here once.
package struct ConvolutionAlgorithmOption: ParsableArguments {
    @Option(help: "Convolution methods: auto (Winograd where it pays, within twice the weights), im2col (darknet's), winograd (weights transformed at load) or winograd-streamed (transformed in each pass).")
    package var convAlgorithm: ConvolutionAlgorithm = .auto

    package init() {}
}

extension ConvolutionAlgorithm: ExpressibleByArgument {}
