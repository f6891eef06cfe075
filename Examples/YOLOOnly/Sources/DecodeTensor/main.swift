import YOLO

// One 2×2 `[yolo]` head, one anchor, two classes: every cell has objectness 0, except the
// bottom-right one (0.9, class 1 at 0.8), as a runtime would hand the activated tensor over.
let head = YOLOHead(anchors: [16, 16], mask: [0], classes: 2)
let plane = 4
var output = [Float](repeating: 0, count: head.entriesPerAnchor * plane)
output[0 * plane + 3] = 0.5  // x
output[1 * plane + 3] = 0.5  // y
output[4 * plane + 3] = 0.9  // objectness
output[6 * plane + 3] = 0.8  // class 1
let candidates = try output.withUnsafeBufferPointer {
    try YOLODecoder.decode($0, gridWidth: 2, gridHeight: 2, head: head, networkWidth: 32, networkHeight: 32, threshold: 0.5)
}
var kept = NMS.perClass(candidates, iouThreshold: 0.45)
correctBoxes(&kept, imageWidth: 64, imageHeight: 64, networkWidth: 32, networkHeight: 32, mapping: .letterbox)
let found = detections(from: kept, threshold: 0.5)
for detection in found {
    let box = detection.pixelBox(imageWidth: 64, imageHeight: 64)
    print("class \(detection.classId) \(detection.confidence) left=\(box.left) top=\(box.top) right=\(box.right) bottom=\(box.bottom)")
}
guard found.count == 1, found[0].classId == 1 else { fatalError("expected one detection of class 1") }
