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

/// `detect --format` (and the result files `--json FILE`…): text (pjreddie's lines with
/// the pixel box), ext (AlexeyAB's `-ext_output` lines), json (one document: an array of
/// image objects), jsonl (one image object a line), coco (one results array for the run),
/// csv (RFC 4180, one row per detection) or darknet-json (AlexeyAB's `-out` file).
enum OutputFormat: String, CaseIterable {
    case text, ext, json, jsonl, coco, csv
    case darknetJSON = "darknet-json"
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
