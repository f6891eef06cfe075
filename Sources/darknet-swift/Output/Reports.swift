import CommandSupport
import Darknet
import Foundation
import Imaging
import YOLO

/// darknet's printout: `dog: 56%`, one line per (box, class), here followed by the pixel box.
/// Paths and names are shown with `escapedForTerminal` (a name holding ANSI escapes must not
/// recolour or clear the user's terminal).
enum TextReport {
    static func render(path: String, width: Int, height: Int, detections: [Detection], names: [String], seconds: Double) -> String {
        var text = escapedForTerminal(path) + String(format: ": Predicted in %f seconds.\n", seconds)
        for detection in detections {
            let box = detection.pixelBox(imageWidth: width, imageHeight: height)
            let percent = String(format: "%.0f%%", detection.confidence * 100)
            text += "\(escapedForTerminal(name(detection.classId, names))): \(percent)\tleft=\(box.left) top=\(box.top) right=\(box.right) bottom=\(box.bottom)\n"
        }
        return text
    }

    static func name(_ classId: Int, _ names: [String]) -> String {
        classId < names.count ? names[classId] : String(classId)
    }
}

/// `text` with control characters (C0, DEL, C1: ESC of an ANSI sequence, a newline inside a
/// name) written as `\xHH`, for lines shown on a terminal.
func escapedForTerminal(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isControl) else { return text }
    var out = ""
    for scalar in text.unicodeScalars {
        if isControl(scalar) {
            out += "\\x" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 2)
        } else {
            out.unicodeScalars.append(scalar)
        }
    }
    return out
}

private func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
}

/// One JSON object per image (JSON Lines), keys in the documented order: path, width, height,
/// timing{decode, inference} (seconds), detections[classId, name, confidence, box (pixels),
/// normalized (centre and size as fractions of the image)].
enum JSONReport {
    static func render(_ result: ImageResult, names: [String], choices: String = "") -> String {
        "{\"path\":\(quoted(result.path)),\"width\":\(result.width),\"height\":\(result.height),\(choices)"
            + "\"timing\":{\"decode\":\(number(double: result.decodeSeconds)),\"inference\":\(number(double: result.inferenceSeconds))},"
            + "\"detections\":\(detections(result.detections, width: result.width, height: result.height, names: names))}"
    }

    /// `"fitting":{"mapping":…,"reason":…},"nms":{"kind":…,"reason":…},"threshold":{"value":…,"reason":…},`:
    /// how the detector fitted the image, which suppression ran and the threshold it kept
    /// boxes above, each with its reason (the cfg's `letter_box` or dialect, the last head's
    /// `nms_kind`, or the options given).
    static func choices(_ detector: Detector, threshold: DefaultThreshold) -> String {
        let fitting = detector.inputFitting
        let nms: (kind: String, reason: String)
        switch detector.options.nmsMode {
        case .perClass: nms = (detector.nms.kind.description, detector.nms.reason)
        case .agnostic: nms = ("agnostic", "--nms-mode agnostic")
        case .none: nms = ("none", detector.options.nmsThreshold == 0 ? "--nms 0" : "--nms-mode none")
        }
        return "\"fitting\":{\"mapping\":\(quoted(fitting.mapping == .letterbox ? "letterbox" : "stretch")),"
            + "\"reason\":\(quoted(fitting.reason))},\"nms\":{\"kind\":\(quoted(nms.kind)),\"reason\":\(quoted(nms.reason))},"
            + "\"threshold\":{\"value\":\(number(threshold.value)),\"reason\":\(quoted(threshold.reason))},"
    }

    /// The `detections` array shared by `detect` and `stream`; `ids` (`stream --track`) adds
    /// an `id` key first in each detection.
    static func detections(_ detections: [Detection], width: Int, height: Int, names: [String], ids: [Int]? = nil) -> String {
        let entries = detections.indices.map { i -> String in
            let d = detections[i]
            let box = d.pixelBox(imageWidth: width, imageHeight: height)
            return "{" + (ids.map { "\"id\":\($0[i])," } ?? "") + "\"classId\":\(d.classId),\"name\":\(quoted(TextReport.name(d.classId, names))),"
                + "\"confidence\":\(number(d.confidence)),"
                + "\"box\":{\"left\":\(box.left),\"top\":\(box.top),\"right\":\(box.right),\"bottom\":\(box.bottom)},"
                + "\"normalized\":{\"x\":\(number(d.box.x)),\"y\":\(number(d.box.y)),"
                + "\"width\":\(number(d.box.width)),\"height\":\(number(d.box.height))}}"
        }
        return "[\(entries.joined(separator: ","))]"
    }

    /// Shortest decimal that reads back as the same Float; non-finite values become null.
    static func number(_ value: Float) -> String {
        value.isFinite ? "\(value)" : "null"
    }

    /// Shortest decimal that reads back as the same Double; non-finite values become null.
    static func number(double value: Double) -> String {
        value.isFinite ? "\(value)" : "null"
    }

    /// A JSON string literal (RFC 8259 escaping; file names may hold quotes, controls, any Unicode).
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let s where s.value < 0x20:
                out += "\\u" + String(repeating: "0", count: 4 - String(s.value, radix: 16).count) + String(s.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// Draws boxes and labels as darknet's `draw_detections`: one box per detection whose best
/// class passes, line width `image.height · 0.006`, colour from the class (`get_color`).
/// With `ids` (`stream --track`) each label entry ends in `#id`.
enum Annotator {
    static func draw(_ detections: [Detection], on image: inout Image, names: [String], classes: Int, ids: [Int]? = nil) {
        let lineWidth = max(1, Int(Double(image.height) * 0.006))
        // darknet draws one box per detection with every class above the threshold in its
        // label ("car, truck"); (box, class) entries of one box share the same coordinates.
        var groups: [(box: PixelBox, entries: [Detection], ids: [Int?])] = []
        for (i, detection) in detections.enumerated() {
            let box = detection.pixelBox(imageWidth: image.width, imageHeight: image.height)
            if let index = groups.firstIndex(where: { $0.entries[0].box == detection.box }) {
                groups[index].entries.append(detection)
                groups[index].ids.append(ids?[i])
            } else {
                groups.append((box, [detection], [ids?[i]]))
            }
        }
        for group in groups {
            let first = group.entries.min { $0.classId < $1.classId }!
            let color = darknetClassColor(classId: first.classId, classes: max(classes, 1))
            let box = group.box
            image.drawBox(left: box.left, top: box.top, right: box.right, bottom: box.bottom, lineWidth: lineWidth,
                          red: color.red, green: color.green, blue: color.blue)
            let label = zip(group.entries, group.ids).sorted { $0.0.classId < $1.0.classId }
                .map { entry, id in
                    TextReport.name(entry.classId, names) + String(format: " %.0f%%", entry.confidence * 100) + (id.map { " #\($0)" } ?? "")
                }
                .joined(separator: ", ")
            image.drawLabel(label, left: box.left, top: box.top, red: color.red, green: color.green, blue: color.blue)
        }
    }
}
