import CommandSupport
import Foundation
import YOLO

/// `--format ext`: AlexeyAB's `detector test -ext_output` stdout (`test_detector`,
/// `draw_detections_v3`): `PATH: Predicted in MS milli-seconds.`, then for each box its best
/// class, then its other classes above the threshold in class order, each
/// `name: 81%\t(left_x:  124   top_y:  220   width:  258   height:  298)`, the box's corner
/// and size rounded to pixels as he rounds them (`round((x - w/2) * im.w)` in float).
enum ExtReport {
    static func render(_ result: ImageResult, names: [String]) -> String {
        var text = escapedForTerminal(result.path) + String(format: ": Predicted in %f milli-seconds.\n", result.inferenceSeconds * 1000)
        for box in AlexeyABBox.boxes(result.detections, names: names) {
            text += line(box.best, width: result.width, height: result.height, names: names)
            for entry in box.entries where entry.classId != box.best.classId {
                text += line(entry, width: result.width, height: result.height, names: names)
            }
        }
        return text
    }

    static func line(_ d: Detection, width: Int, height: Int, names: [String]) -> String {
        let w = Float(width), h = Float(height)
        let left = Foundation.round(Double((d.box.x - d.box.width / 2) * w))
        let top = Foundation.round(Double((d.box.y - d.box.height / 2) * h))
        return escapedForTerminal(TextReport.name(d.classId, names)) + String(format: ": %.0f%%", Double(d.confidence * 100))
            + String(format: "\t(left_x: %4.0f   top_y: %4.0f   width: %4.0f   height: %4.0f)\n",
                     left, top, Foundation.round(Double(d.box.width * w)), Foundation.round(Double(d.box.height * h)))
    }
}
