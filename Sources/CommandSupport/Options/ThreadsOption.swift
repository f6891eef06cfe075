import ArgumentParser

/// `--threads`: the workers a model runs on, capped by `ThreadLimit`. Declared here once.
package struct ThreadsOption: ParsableArguments {
    @Option(help: ThreadLimit.help)
    package var threads: Int?

    package init() {}

    package func validate() throws {
        if let threads, threads < 1 { throw ValidationError("--threads must be ≥ 1, got \(threads)") }
    }
}
