import ArgumentParser
import Darknet

/// `--threads` and `--conv-algorithm`, side by side: how the engine runs the network
/// (`ExecutionOptions`), for the commands that let both be chosen. A command that runs on the
/// automatic convolution methods takes `ThreadsOption` alone.
package struct EngineOptions: ParsableArguments {
    @OptionGroup package var workers: ThreadsOption

    @OptionGroup package var convolution: ConvolutionAlgorithmOption<RunsConvolutions>

    package init() {}

    package var threads: Int? { workers.threads }
    package var convolutionAlgorithm: ConvolutionAlgorithm { convolution.convAlgorithm }
}
