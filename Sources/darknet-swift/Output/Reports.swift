import CommandSupport
import Darknet
import Foundation
import Imaging
import YOLO

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
