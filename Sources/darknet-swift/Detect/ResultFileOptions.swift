import ArgumentParser
import CommandSupport

/// `detect`'s results files, each in one format, all written from the one pass (beside
/// `--format` on stdout, `--output-dir` and `--save-labels`): `--json`, `--jsonl`, `--csv`,
/// `--coco`, `--darknet-json` (his `-out`).
struct ResultFileOptions: ParsableArguments {
    @Option(help: "Also write the results as one JSON document (an array of images) to this file.")
    var json: String?

    @Option(help: "Also write the results as JSON Lines (one image a line) to this file.")
    var jsonl: String?

    @Option(help: "Also write the results as CSV to this file.")
    var csv: String?

    @Option(help: "Also write the results as a COCO results array to this file.")
    var coco: String?

    @Option(help: "Also write the results as AlexeyAB's -out JSON to this file.")
    var darknetJSON: String?

    /// Each file given, with its format, in a fixed order.
    var requested: [(format: OutputFormat, path: String)] {
        [(.json, json), (.jsonl, jsonl), (.csv, csv), (.coco, coco), (.darknetJSON, darknetJSON)].compactMap { format, path in
            path.map { (format, $0) }
        }
    }

    func validate() throws {
        let paths = requested.map { RawPath(argument: $0.path).standardized }
        if Set(paths).count != paths.count { throw ValidationError("two results files with the same path") }
    }

    /// A writer for each file, its temporary created (an existing file refused without `force`:
    /// then no temporary is left behind).
    func writers(context: ResultContext, force: Bool, inputs: [RawPath]) throws -> [ResultWriter] {
        var files: [ResultFile] = []
        do {
            for (_, path) in requested { files.append(try ResultFile(path, force: force, inputs: inputs)) }
        } catch {
            for file in files { file.abandon() }
            throw error
        }
        return zip(requested, files).map { ResultWriter(format: $0.format, destination: .file($1), context: context) }
    }
}
