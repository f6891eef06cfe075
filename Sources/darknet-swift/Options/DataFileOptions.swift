import ArgumentParser
import CommandSupport
import Darknet

/// `--data FILE`: a darknet `.data` file for the native commands (`detect`, `classify`), read
/// as `detector` reads its DATA argument (`DataFile`, relative paths from the current folder as
/// darknet opens them): the class names from its `names=`, its `classes=` checked against the
/// model. Declared here once.
struct DataFileOptions: ParsableArguments {
    @Option(help: "A darknet .data file: class names from its names=, its classes= checked against the model.")
    var data: String?

    /// The file, its warnings printed; nil without `--data`.
    func read() throws -> DataFile? { try data.map(Self.read) }

    /// The `.data` file at `path`, with a warning line for each line darknet skips or ignores.
    static func read(_ path: String) throws -> DataFile {
        let file = try DataFile(contentsOf: path)
        for warning in file.warnings { warn("\(warning)") }
        return file
    }
}
