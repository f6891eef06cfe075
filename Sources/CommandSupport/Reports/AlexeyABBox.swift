import YOLO

/// The boxes of one image as AlexeyAB's `draw_detections_v3` (image.c) selects and orders them
/// for its text: a box with a class above the threshold (`get_actual_detections`: its best
/// class, the first on equal probabilities, among names not starting with `dont_show`), sorted
/// by its left edge (`compare_by_lefts`, a stable sort as glibc's merge-sort `qsort` is).
/// darknet's one `detection` per box is our detections of one box, consecutive in the
/// detector's order.
package struct AlexeyABBox {
    package var box: BoundingBox
    /// The box's detections, in class order.
    package var entries: [Detection]
    package var best: Detection

    package static func boxes(_ detections: [Detection], names: [String]) -> [AlexeyABBox] {
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
    package static func isHidden(_ classId: Int, _ names: [String]) -> Bool {
        classId < names.count && names[classId].hasPrefix("dont_show")
    }
}
