/// One YOLOv1 `[detection]` head (pjreddie's detection_layer.c): a `side × side` grid whose
/// cells each hold `classes` scores, shared by the cell's `num` boxes, and each box's
/// confidence and coordinates.
///
/// Output layout: flat, `side²·classes` scores cell by cell, then `side²·num` confidences,
/// then `side²·num` boxes of 4 floats (x, y, w, h) — `side²·(classes + 5·num)` floats.
public struct YOLOv1Head: Sendable, Hashable {
    public var side: Int
    /// Boxes per cell (`num`).
    public var boxes: Int
    public var classes: Int
    /// `sqrt=1`: the network predicts the square roots of w and h.
    public var sqrt: Bool

    public init(side: Int, boxes: Int, classes: Int, sqrt: Bool) {
        self.side = side
        self.boxes = boxes
        self.classes = classes
        self.sqrt = sqrt
    }

    /// `side²·(classes + 5·boxes)`, or nil when a count is not positive or it overflows.
    public var outputCount: Int? {
        guard side > 0, boxes > 0, classes > 0 else { return nil }
        let cells = side.multipliedReportingOverflow(by: side)
        let perCell = boxes.multipliedReportingOverflow(by: 5)
        let entries = classes.addingReportingOverflow(perCell.partialValue)
        let total = cells.partialValue.multipliedReportingOverflow(by: entries.partialValue)
        if cells.overflow || perCell.overflow || entries.overflow || total.overflow { return nil }
        return total.partialValue
    }
}

/// Decodes `[detection]` outputs as pjreddie's `darknet yolo test` does
/// (`get_network_boxes(net, 1, 1, …)` → `get_detection_detections` with `w = h = 1`).
public enum YOLOv1Decoder {
    /// Every box of every cell, in darknet's order (cells row-major, then the cell's boxes),
    /// normalised to the image (YOLOv1 is run on the image resized to the network):
    /// - box `((x + col)/side, (y + row)/side, w, h)` in Float, with `w = pow(w, 2)` (the
    ///   square in double, rounded to Float) under `sqrt`;
    /// - objectness = the box's confidence; probability[j] = confidence × score[j] (Float),
    ///   kept if `> threshold`, else 0.
    /// Boxes with no probability left stay: darknet's NMS keeps them in its array (they can
    /// neither suppress nor be suppressed) and its order depends on them.
    public static func decode(_ output: UnsafeBufferPointer<Float>, head: YOLOv1Head,
                              threshold: Float) throws(YOLOError) -> [Candidate] {
        guard let expected = head.outputCount else {
            throw .shapeTooLarge(gridWidth: head.side, gridHeight: head.side, maskCount: head.boxes, classes: head.classes)
        }
        if output.count != expected {
            throw .outputSizeMismatch(expected: expected, actual: output.count, gridWidth: head.side, gridHeight: head.side,
                                      maskCount: head.boxes, classes: head.classes)
        }
        let (side, boxes, classes) = (head.side, head.boxes, head.classes)
        let cells = side * side
        var candidates: [Candidate] = []
        candidates.reserveCapacity(cells * boxes)
        for i in 0..<cells {
            let (row, col) = (i / side, i % side)
            for n in 0..<boxes {
                let scale = output[cells * classes + i * boxes + n]
                let box = cells * (classes + boxes) + (i * boxes + n) * 4
                var width = output[box + 2], height = output[box + 3]
                if head.sqrt {  // C's pow(x, 2): the exact square, rounded once
                    width = Float(Double(width) * Double(width))
                    height = Float(Double(height) * Double(height))
                }
                let geometry = BoundingBox(x: (output[box] + Float(col)) / Float(side),
                                           y: (output[box + 1] + Float(row)) / Float(side), width: width, height: height)
                var probabilities = [Float](repeating: 0, count: classes)
                for j in 0..<classes {
                    let probability = scale * output[i * classes + j]
                    probabilities[j] = probability > threshold ? probability : 0
                }
                candidates.append(Candidate(box: geometry, objectness: scale, probabilities: probabilities))
            }
        }
        return candidates
    }
}
