import CommandSupport
import Foundation
import YOLO

/// What every format of a run shares: the class names and count, the COCO image ids, and the
/// JSON object's account of the thresholds, fitting and NMS (`JSONReport.choices`).
struct ResultContext: Sendable {
    var names: [String]
    var classCount: Int
    var imageIds: COCOImageIds
    var choices: String = ""
}

/// Where a writer's text goes: stdout (`--format`), or a results file (`--json FILE`…).
enum ResultDestination {
    case standardOutput
    case file(ResultFile)
}

/// Streams results in one format to one destination, one image at a time.
struct ResultWriter {
    let format: OutputFormat
    let destination: ResultDestination
    let context: ResultContext
    /// Records (images, or COCO entries) written so far.
    private var written = 0

    init(format: OutputFormat, destination: ResultDestination = .standardOutput, context: ResultContext) {
        self.format = format
        self.destination = destination
        self.context = context
    }

    mutating func begin() throws(OutputError) {
        switch format {
        case .csv: try emit(CSVReport.header)
        case .coco, .json: try emit("[")
        case .darknetJSON: try emit("[\n")
        default: break
        }
    }

    /// Writes one image's result; throws when the COCO format has no id for the image, or an
    /// `OutputError` when the destination cannot be written.
    mutating func write(_ result: ImageResult) throws {
        let names = context.names
        switch format {
        case .text:
            try emit(TextReport.render(path: result.path, width: result.width, height: result.height,
                                       detections: result.detections, names: names, seconds: result.inferenceSeconds))
        case .ext:
            try emit(ExtReport.render(result, names: names))
        case .jsonl:
            try emit(JSONReport.render(result, names: names, choices: context.choices) + "\n")
        case .json:
            try emit((written == 0 ? "\n" : ",\n") + JSONReport.render(result, names: names, choices: context.choices))
            written += 1
        case .csv:
            try emit(CSVReport.rows(result, names: names))
        case .darknetJSON:
            try emit((written == 0 ? "" : ", \n") + DarknetJSONReport.render(result, frameId: written + 1, names: names))
            written += 1
        case .coco:
            let id = try context.imageIds.id(for: result.path)
            for detection in result.detections {
                try emit((written == 0 ? "\n" : ",\n") + COCOReport.entry(detection, imageId: id, result: result, classCount: context.classCount))
                written += 1
            }
        }
    }

    /// Closes the document, and a file's temporary is renamed onto its target.
    mutating func end() throws(OutputError) {
        switch format {
        case .coco, .json: try emit(written == 0 ? "]\n" : "\n]\n")
        case .darknetJSON: try emit("\n]")
        default: break
        }
        if case .file(let file) = destination { try file.finish() }
    }

    /// A run that stopped: a file keeps what it holds and is closed as it stands (its
    /// document closed, so what was computed is not lost); stdout is left as it is.
    mutating func abandon() {
        guard case .file = destination else { return }
        do { try end() } catch {
            if case .file(let file) = destination { file.abandon() }
        }
    }

    private func emit(_ text: String) throws(OutputError) {
        switch destination {
        case .standardOutput: try StandardOutput.write(text)
        case .file(let file): try file.write(text)
        }
    }
}
