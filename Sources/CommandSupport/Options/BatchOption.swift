import ArgumentParser

/// `--batch`: images per forward pass, 1...64. Declared here once; `Help` says what a batch
/// means to the command.
package struct BatchOption<Help: OptionHelp>: ParsableArguments {
    @Option(help: ArgumentHelp(Help.help))
    package var batch = 1

    package init() {}

    package func validate() throws {
        guard (1...64).contains(batch) else { throw ValidationError("--batch must be in 1...64, got \(batch)") }
    }
}
