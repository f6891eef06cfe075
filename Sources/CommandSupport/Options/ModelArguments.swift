import ArgumentParser

/// The cfg and weights files of the commands that run a trained model (`detect`, `stream`,
/// `classify`): the first two arguments, in that order. Declared here once.
package struct ModelArguments: ParsableArguments {
    @Argument(help: "Darknet .cfg file.")
    package var cfg: String

    @Argument(help: "Darknet .weights file.")
    package var weights: String

    package init() {}
}
