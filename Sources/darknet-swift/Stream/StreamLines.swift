import CommandSupport
import Foundation
import YOLO

/// How `stream` (and `detect` on a video) writes each frame's record.
///
/// - `json`: one JSON object a line: `{"frame", "pts", "time", "width", "height", "latency",
///   "fps", "dropped", ["skipped",] "detections"}`; `pts` is the source's timestamp in seconds
///   (null on stdin), `time` the wall-clock time the frame was read (seconds since 1970),
///   `skipped` (only with `--every` / `--fps`) the frames sampling left out before this one. A frame
///   that cannot be used gives `{"frame", "error"}`.
/// - `text(label)`: darknet's lines (`TextReport`), headed `LABEL frame N at 1.234 s: Predicted
///   in … seconds.`; a frame that cannot be used is reported on stderr.
enum StreamLines {
    case json
    case text(label: String)

    /// Everything one processed frame's record holds.
    struct Record {
        var frame: Frame
        var width: Int
        var height: Int
        var latency: Double
        var fps: Double?
        var dropped: Int
        var skipped: Int?
        var seconds: Double
        var detections: [Detection]
        var ids: [Int]?
    }

    func render(_ record: Record, names: [String]) -> String {
        let frame = record.frame
        switch self {
        case .json:
            return "{\"frame\":\(frame.index),\"pts\":\(frame.pts.map { JSONReport.number(double: $0) } ?? "null"),"
                + "\"time\":\(JSONReport.number(double: frame.time)),"
                + "\"width\":\(record.width),\"height\":\(record.height),"
                + "\"latency\":\(JSONReport.number(double: record.latency)),\"fps\":\(record.fps.map { JSONReport.number(double: $0) } ?? "null"),"
                + "\"dropped\":\(record.dropped)," + (record.skipped.map { "\"skipped\":\($0)," } ?? "")
                + "\"detections\":\(JSONReport.detections(record.detections, width: record.width, height: record.height, names: names, ids: record.ids))}\n"
        case .text(let label):
            return TextReport.render(path: Self.heading(label, frame), width: record.width, height: record.height,
                                     detections: record.detections, names: names, seconds: record.seconds)
        }
    }

    /// The record of a frame that could not be used; nil in text mode (the error goes to stderr).
    func error(_ index: Int, _ error: Error) -> String? {
        switch self {
        case .json: return "{\"frame\":\(index),\"error\":\(JSONReport.quoted(String(describing: error)))}\n"
        case .text: return nil
        }
    }

    /// `video.mp4 frame 12 at 0.800 s` (`at …` only with a timestamp).
    static func heading(_ label: String, _ frame: Frame) -> String {
        "\(label) frame \(frame.index)" + (frame.pts.map { String(format: " at %.3f s", $0) } ?? "")
    }
}
