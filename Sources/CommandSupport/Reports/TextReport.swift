import Foundation
import YOLO

/// darknet's printout: `dog: 56%`, one line per (box, class), here followed by the pixel box.
/// Paths and names are shown with `escapedForTerminal` (a name holding ANSI escapes must not
/// recolour or clear the user's terminal).
package enum TextReport {
    package static func render(path: String, width: Int, height: Int, detections: [Detection], names: [String], seconds: Double) -> String {
        var text = escapedForTerminal(path) + String(format: ": Predicted in %f seconds.\n", seconds)
        for detection in detections {
            let box = detection.pixelBox(imageWidth: width, imageHeight: height)
            let percent = String(format: "%.0f%%", detection.confidence * 100)
            text += "\(escapedForTerminal(name(detection.classId, names))): \(percent)\tleft=\(box.left) top=\(box.top) right=\(box.right) bottom=\(box.bottom)\n"
        }
        return text
    }

    package static func name(_ classId: Int, _ names: [String]) -> String {
        classId < names.count ? names[classId] : String(classId)
    }
}

/// `text` with control characters (C0, DEL, C1: ESC of an ANSI sequence, a newline inside a
/// name) written as `\xHH`, for lines shown on a terminal.
package func escapedForTerminal(_ text: String) -> String {
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
