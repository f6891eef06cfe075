import Darknet
import Foundation
import YOLO

/// One JSON object per image (JSON Lines), keys in the documented order: path, width, height,
/// timing{decode, inference} (seconds), detections[classId, name, confidence, box (pixels),
/// normalized (centre and size as fractions of the image)].
package enum JSONReport {
    package static func render(_ result: ImageResult, names: [String], choices: String = "") -> String {
        "{\"path\":\(quoted(result.path)),\"width\":\(result.width),\"height\":\(result.height),\(choices)"
            + "\"timing\":{\"decode\":\(number(double: result.decodeSeconds)),\"inference\":\(number(double: result.inferenceSeconds))},"
            + "\"detections\":\(detections(result.detections, width: result.width, height: result.height, names: names))}"
    }

    /// `"fitting":{"mapping":…,"reason":…},"nms":{"kind":…,"reason":…},"threshold":{"value":…,"reason":…},`:
    /// how the detector fitted the image, which suppression ran and the threshold it kept
    /// boxes above, each with its reason (the cfg's `letter_box` or dialect, the last head's
    /// `nms_kind`, or the options given).
    /// `options` are the ones the boxes were chosen with when not the detector's (a server
    /// request's `thresh` and `nms`).
    package static func choices(_ detector: Detector, options: DetectorOptions? = nil, threshold: DefaultThreshold) -> String {
        let fitting = detector.inputFitting
        let options = options ?? detector.options
        let nms: (kind: String, reason: String)
        switch options.nmsMode {
        case .perClass: nms = (detector.nms.kind.description, detector.nms.reason)
        case .agnostic: nms = ("agnostic", "--nms-mode agnostic")
        case .none: nms = ("none", options.nmsThreshold == 0 ? "--nms 0" : "--nms-mode none")
        }
        return "\"fitting\":{\"mapping\":\(quoted(fitting.mapping == .letterbox ? "letterbox" : "stretch")),"
            + "\"reason\":\(quoted(fitting.reason))},\"nms\":{\"kind\":\(quoted(nms.kind)),\"reason\":\(quoted(nms.reason))},"
            + "\"threshold\":{\"value\":\(number(threshold.value)),\"reason\":\(quoted(threshold.reason))},"
    }

    /// The `detections` array shared by `detect` and `stream`; `ids` (`stream --track`) adds
    /// an `id` key first in each detection.
    package static func detections(_ detections: [Detection], width: Int, height: Int, names: [String], ids: [Int]? = nil) -> String {
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
    package static func number(_ value: Float) -> String {
        value.isFinite ? "\(value)" : "null"
    }

    /// Shortest decimal that reads back as the same Double; non-finite values become null.
    package static func number(double value: Double) -> String {
        value.isFinite ? "\(value)" : "null"
    }

    /// A JSON string literal (RFC 8259 escaping; file names may hold quotes, controls, any Unicode).
    package static func quoted(_ text: String) -> String {
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
