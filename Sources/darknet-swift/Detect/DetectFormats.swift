import Foundation
import YOLO

/// What `detect` learnt about one image, handed to the output format.
struct ImageResult: Sendable {
    var path: String
    var width: Int
    var height: Int
    var detections: [Detection]
    /// Seconds spent decoding the file and running the network (letterbox, forward, decode, NMS).
    var decodeSeconds: Double
    var inferenceSeconds: Double
}

/// `detect --format`: text (darknet's lines), jsonl (one object per image; `json` is the same),
/// coco (one results array for the run) or csv (RFC 4180, one row per detection).
enum OutputFormat: String, CaseIterable {
    case text, json, jsonl, coco, csv
}

/// Streams results to stdout in the chosen format, one image at a time.
struct ResultWriter {
    let format: OutputFormat
    let names: [String]
    let classCount: Int
    let imageIds: COCOImageIds
    /// How images were fitted and suppressed, and why (`JSONReport.choices`): in every JSON object.
    let choices: String
    private var written = 0

    init(format: OutputFormat, names: [String], classCount: Int, imageIds: COCOImageIds, choices: String = "") {
        self.format = format
        self.names = names
        self.classCount = classCount
        self.imageIds = imageIds
        self.choices = choices
    }

    mutating func begin() throws(OutputError) {
        switch format {
        case .csv: try emit(CSVReport.header)
        case .coco: try emit("[")
        default: break
        }
    }

    /// Writes one image's result; throws when the COCO format has no id for the image, or an
    /// `OutputError` when stdout cannot be written.
    mutating func write(_ result: ImageResult) throws {
        switch format {
        case .text:
            try emit(TextReport.render(path: result.path, width: result.width, height: result.height,
                                   detections: result.detections, names: names, seconds: result.inferenceSeconds))
        case .json, .jsonl:
            try emit(JSONReport.render(result, names: names, choices: choices) + "\n")
        case .csv:
            try emit(CSVReport.rows(result, names: names))
        case .coco:
            let id = try imageIds.id(for: result.path)
            for detection in result.detections {
                try emit((written == 0 ? "\n" : ",\n") + COCOReport.entry(detection, imageId: id, result: result, classCount: classCount))
                written += 1
            }
        }
    }

    mutating func end() throws(OutputError) {
        if format == .coco { try emit(written == 0 ? "]\n" : "\n]\n") }
    }

    private func emit(_ text: String) throws(OutputError) {
        try StandardOutput.write(text)
    }
}

/// RFC 4180: comma-separated, CRLF line ends, fields holding a comma, quote, CR or LF are
/// quoted with inner quotes doubled. Images without detections produce no row.
enum CSVReport {
    static let header = "path,width,height,class_id,name,confidence,left,top,right,bottom,x,y,w,h\r\n"

    static func rows(_ result: ImageResult, names: [String]) -> String {
        var text = ""
        for d in result.detections {
            let box = d.pixelBox(imageWidth: result.width, imageHeight: result.height)
            let fields = [field(result.path), "\(result.width)", "\(result.height)", "\(d.classId)",
                          field(TextReport.name(d.classId, names)), JSONReport.number(d.confidence),
                          "\(box.left)", "\(box.top)", "\(box.right)", "\(box.bottom)",
                          JSONReport.number(d.box.x), JSONReport.number(d.box.y),
                          JSONReport.number(d.box.width), JSONReport.number(d.box.height)]
            text += fields.joined(separator: ",") + "\r\n"
        }
        return text
    }

    static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
