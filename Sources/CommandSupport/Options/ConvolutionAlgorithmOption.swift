import ArgumentParser
import Darknet

/// `--conv-algorithm`: how the convolutions run (`ExecutionOptions.convolutionAlgorithm`).
/// Declared here once; `Help` says what it is for in a command (`RunsConvolutions` where the
/// command runs the network, `summary`'s where it only plans it).
package struct ConvolutionAlgorithmOption<Help: OptionHelp>: ParsableArguments {
    @Option(help: ArgumentHelp(Help.help))
    package var convAlgorithm: ConvolutionAlgorithm = .auto

    package init() {}
}

/// `--conv-algorithm`'s words in the commands that run the network.
package enum RunsConvolutions: OptionHelp {
    package static let help = "Convolution methods: auto (Winograd where it pays, within twice the weights), im2col (darknet's), winograd (weights transformed at load) or winograd-streamed (transformed in each pass)."
}

extension ConvolutionAlgorithm: ExpressibleByArgument {}
