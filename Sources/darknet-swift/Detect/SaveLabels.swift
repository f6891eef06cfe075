import Foundation
import YOLO

/// `detect --save-labels DIR`: one YOLO label file per image, `DIR/NAME.txt`, as AlexeyAB's
/// `darknet detector test … -save_labels` writes it for pseudo-labelling (src/detector.c,
/// `test_detector`): for each box, its most probable class above the threshold (on equal
/// probabilities the lower class) as `printf("%d %2.4f %2.4f %2.4f %2.4f\n", class, x, y, w, h)`,
/// the centre and size normalised to the image and not clamped (a box reaching past the
/// border gives values below 0 or above 1, as there). An image without detections gets an
/// empty file (AlexeyAB opens the file before looking at the boxes).
enum SaveLabels {
    /// The lines for `detections` (darknet's one `Detection` per box and class above the
    /// threshold: the boxes are grouped back, in order of first appearance).
    static func text(_ detections: [Detection]) -> String {
        var best: [Detection] = []
        var index: [BoundingBox: Int] = [:]
        for detection in detections {
            if let i = index[detection.box] {
                let kept = best[i]
                if detection.confidence > kept.confidence
                    || (detection.confidence == kept.confidence && detection.classId < kept.classId) {
                    best[i] = detection
                }
            } else {
                index[detection.box] = best.count
                best.append(detection)
            }
        }
        return best.map {
            String(format: "%d %2.4f %2.4f %2.4f %2.4f\n", Int32(truncatingIfNeeded: $0.classId), Double($0.box.x), Double($0.box.y),
                   Double($0.box.width), Double($0.box.height))
        }.joined()
    }
}
