import Foundation
import YOLO

/// `--format darknet-json`: AlexeyAB's `detector test -out FILE` (`detection_to_json`,
/// network.c), byte for byte: `[`, one object per image (`frame_id` counting from 1,
/// `filename`, `objects` with `class_id`, `name`, `relative_coordinates{center_x, center_y,
/// width, height}` and `confidence`, each `%f`), `]`. Each (box, class) above the threshold
/// and above his floor of 0.005 is an object, names starting with `dont_show` left out. Names
/// and file names are JSON strings (he prints them raw: a quote in one broke his file).
package enum DarknetJSONReport {
    package static let floor: Float = 0.005

    package static func render(_ result: ImageResult, frameId: Int, names: [String]) -> String {
        let objects = result.detections.filter { $0.confidence > floor && !AlexeyABBox.isHidden($0.classId, names) }.map { d in
            "  {\"class_id\":\(d.classId), \"name\":\(JSONReport.quoted(TextReport.name(d.classId, names))), "
                + String(format: "\"relative_coordinates\":{\"center_x\":%f, \"center_y\":%f, \"width\":%f, \"height\":%f}, \"confidence\":%f}",
                         Double(d.box.x), Double(d.box.y), Double(d.box.width), Double(d.box.height), Double(d.confidence))
        }
        return "{\n \"frame_id\":\(frameId), \n \"filename\":\(JSONReport.quoted(result.path)), \n \"objects\": [ \n"
            + objects.joined(separator: ", \n") + "\n ] \n}"
    }
}
