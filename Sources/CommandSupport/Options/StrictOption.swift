import ArgumentParser

/// `--strict`: the first cfg warning is an error (`report`). Declared here once.
package struct StrictOption: ParsableArguments {
    @Flag(help: "Treat cfg warnings (unknown keys, ignored text, repeated keys) as errors.")
    package var strict = false

    package init() {}
}
