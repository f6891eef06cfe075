import Foundation
import YOLO

/// The boxes of one image as AlexeyAB's `draw_detections_v3` (image.c) selects and orders them
/// for its text: a box with a class above the threshold (`get_actual_detections`: its best
/// class, the first on equal probabilities, among names not starting with `dont_show`), sorted
/// by its left edge (`compare_by_lefts`, a stable sort as glibc's merge-sort `qsort` is).
/// darknet's one `detection` per box is our detections of one box, consecutive in the
/// detector's order.
struct AlexeyABBox {
    var box: BoundingBox
    /// The box's detections, in class order.
    var entries: [Detection]
    var best: Detection

    static func boxes(_ detections: [Detection], names: [String]) -> [AlexeyABBox] {
        var groups: [[Detection]] = []
        for detection in detections {
            if let last = groups.last?.first, last.box == detection.box { groups[groups.count - 1].append(detection) }
            else { groups.append([detection]) }
        }
        let boxes = groups.compactMap { entries -> AlexeyABBox? in
            var best: Detection?
            for entry in entries where !isHidden(entry.classId, names) && entry.confidence > (best?.confidence ?? -.infinity) {
                best = entry
            }
            return best.map { AlexeyABBox(box: entries[0].box, entries: entries, best: $0) }
        }
        return boxes.enumerated().sorted { a, b in
            let left = { (box: BoundingBox) in box.x - box.width / 2 }
            return left(a.element.box) != left(b.element.box) ? left(a.element.box) < left(b.element.box) : a.offset < b.offset
        }.map(\.element)
    }

    /// His names starting with `dont_show` are left out of his text and JSON.
    static func isHidden(_ classId: Int, _ names: [String]) -> Bool {
        classId < names.count && names[classId].hasPrefix("dont_show")
    }
}

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

/// `--format darknet-json`: AlexeyAB's `detector test -out FILE` (`detection_to_json`,
/// network.c), byte for byte: `[`, one object per image (`frame_id` counting from 1,
/// `filename`, `objects` with `class_id`, `name`, `relative_coordinates{center_x, center_y,
/// width, height}` and `confidence`, each `%f`), `]`. Each (box, class) above the threshold
/// and above his floor of 0.005 is an object, names starting with `dont_show` left out. Names
/// and file names are JSON strings (he prints them raw: a quote in one broke his file).
enum DarknetJSONReport {
    static let floor: Float = 0.005

    static func render(_ result: ImageResult, frameId: Int, names: [String]) -> String {
        let objects = result.detections.filter { $0.confidence > floor && !AlexeyABBox.isHidden($0.classId, names) }.map { d in
            "  {\"class_id\":\(d.classId), \"name\":\(JSONReport.quoted(TextReport.name(d.classId, names))), "
                + String(format: "\"relative_coordinates\":{\"center_x\":%f, \"center_y\":%f, \"width\":%f, \"height\":%f}, \"confidence\":%f}",
                         Double(d.box.x), Double(d.box.y), Double(d.box.width), Double(d.box.height), Double(d.confidence))
        }
        return "{\n \"frame_id\":\(frameId), \n \"filename\":\(JSONReport.quoted(result.path)), \n \"objects\": [ \n"
            + objects.joined(separator: ", \n") + "\n ] \n}"
    }
}
