/// Turns one `[yolo]` head's output into candidates, as darknet's yolo_layer.c does.
///
/// Output layout (darknet's `entry_index`): CHW, `mask.count` blocks of `(4 + 1 + classes)`
/// planes of `gridHeight × gridWidth` floats; plane 0..3 = x, y, w, h, plane 4 = objectness,
/// planes 5... = class scores. Float `(n, entry, row, col)` sits at
/// `((n × (5 + classes) + entry) × gridHeight + row) × gridWidth + col`.
public enum YOLODecoder {
    /// darknet's `logistic_activate`: `1/(1 + exp(-x))` computed in double, rounded to Float.
    public static func logistic(_ x: Float) -> Float { darknetLogistic(x) }

    /// darknet's forward_yolo_layer activation, in place: logistic on the x and y planes and on
    /// the objectness and class planes of every anchor; w and h stay raw.
    /// `output` has the shape `decode` documents. Use this when a runtime hands back raw logits.
    public static func applyLogistic(
        _ output: UnsafeMutableBufferPointer<Float>, gridWidth: Int, gridHeight: Int, head: YOLOHead
    ) throws(YOLOError) {
        let expected = try head.outputCount(gridWidth: gridWidth, gridHeight: gridHeight)
        try checkCount(expected: expected, actual: output.count, gridWidth, gridHeight, head)
        let plane = gridWidth * gridHeight
        let block = plane * head.entriesPerAnchor
        for n in 0..<head.mask.count {
            let base = n * block
            for i in base..<(base + 2 * plane) { output[i] = darknetLogistic(output[i]) }
            for i in (base + 4 * plane)..<(base + block) { output[i] = darknetLogistic(output[i]) }
        }
    }

    /// Decodes one head, reproducing darknet's get_yolo_detections / get_yolo_box (before
    /// correct_yolo_boxes):
    /// - `output`: CHW, `(mask.count × (4 + 1 + classes)) × gridHeight × gridWidth` floats, with
    ///   logistic already applied to x, y, objectness and class scores; w, h raw.
    /// - cells are visited row-major, and within a cell the anchors in mask order;
    /// - a cell/anchor with objectness `<= threshold` (or NaN) is skipped;
    /// - box = ((col + x)/gridW, (row + y)/gridH, exp(w)·anchorW/netW, exp(h)·anchorH/netH), the
    ///   first two in Float, the last two in double rounded to Float, as darknet's C does
    ///   (a head with `scaleXY != 1` or `newCoords` is decoded by
    ///   `decode(_:tensor:head:networkWidth:networkHeight:threshold:options:)`, post-activation);
    /// - probabilities[j] = objectness × score[j] (Float), kept if `> threshold`, else 0.
    /// Throws `YOLOError` when the head is malformed, a size is not positive, or the buffer
    /// size does not match the shape.
    public static func decode(
        _ output: UnsafeBufferPointer<Float>, gridWidth: Int, gridHeight: Int, head: YOLOHead,
        networkWidth: Int, networkHeight: Int, threshold: Float
    ) throws(YOLOError) -> [Candidate] {
        let expected = try head.outputCount(gridWidth: gridWidth, gridHeight: gridHeight)
        if networkWidth < 1 || networkHeight < 1 {
            throw .nonPositiveNetworkSize(width: networkWidth, height: networkHeight)
        }
        try checkCount(expected: expected, actual: output.count, gridWidth, gridHeight, head)
        if head.scaleXY != 1 || head.newCoords {
            // AlexeyAB's heads: the general decoder (same darknet arithmetic, post-activation).
            let tensor = TensorDescriptor.nchw(channels: head.mask.count * head.entriesPerAnchor,
                                               height: gridHeight, width: gridWidth)
            do {
                return try decode(output, tensor: tensor, head: .yolo(head), networkWidth: networkWidth,
                                  networkHeight: networkHeight, threshold: threshold)
            } catch {
                if case .head(let headError) = error { throw headError }
                throw .outputSizeMismatch(expected: expected, actual: output.count, gridWidth: gridWidth,
                                          gridHeight: gridHeight, maskCount: head.mask.count, classes: head.classes)
            }
        }

        let plane = gridWidth * gridHeight
        let block = plane * head.entriesPerAnchor
        let classes = head.classes
        // yolo_num_detections: count first so the result is allocated once.
        var count = 0
        for n in 0..<head.mask.count {
            let objectnessPlane = n * block + 4 * plane
            for i in 0..<plane where output[objectnessPlane + i] > threshold { count += 1 }
        }
        var candidates: [Candidate] = []
        candidates.reserveCapacity(count)

        let gridW = Float(gridWidth), gridH = Float(gridHeight)
        let netW = Double(networkWidth), netH = Double(networkHeight)
        for i in 0..<plane {
            let row = i / gridWidth
            let col = i % gridWidth
            for n in 0..<head.mask.count {
                let base = n * block + i
                let objectness = output[base + 4 * plane]
                // darknet skips `objectness <= thresh`; a NaN objectness is skipped too, as darknet's
                // yolo_num_detections (which sizes its array with `> thresh`) does not count it.
                if !(objectness > threshold) { continue }
                let anchor = head.mask[n]
                let box = BoundingBox(
                    x: (Float(col) + output[base]) / gridW,
                    y: (Float(row) + output[base + plane]) / gridH,
                    width: Float(doubleExp(Double(output[base + 2 * plane])) * Double(head.anchors[2 * anchor]) / netW),
                    height: Float(doubleExp(Double(output[base + 3 * plane])) * Double(head.anchors[2 * anchor + 1]) / netH))
                var probabilities = [Float](repeating: 0, count: classes)
                for j in 0..<classes {
                    let probability = objectness * output[base + (5 + j) * plane]
                    probabilities[j] = probability > threshold ? probability : 0
                }
                candidates.append(Candidate(box: box, objectness: objectness, probabilities: probabilities))
            }
        }
        return candidates
    }

    /// `decode` on an array; same shape rules.
    public static func decode(
        _ output: [Float], gridWidth: Int, gridHeight: Int, head: YOLOHead,
        networkWidth: Int, networkHeight: Int, threshold: Float
    ) throws(YOLOError) -> [Candidate] {
        let result: Result<[Candidate], YOLOError> = output.withUnsafeBufferPointer { buffer in
            Result { () throws(YOLOError) -> [Candidate] in
                try decode(buffer, gridWidth: gridWidth, gridHeight: gridHeight, head: head,
                           networkWidth: networkWidth, networkHeight: networkHeight, threshold: threshold)
            }
        }
        return try result.get()
    }

    private static func checkCount(
        expected: Int, actual: Int, _ gridWidth: Int, _ gridHeight: Int, _ head: YOLOHead
    ) throws(YOLOError) {
        if expected != actual {
            throw .outputSizeMismatch(expected: expected, actual: actual, gridWidth: gridWidth,
                                      gridHeight: gridHeight, maskCount: head.mask.count, classes: head.classes)
        }
    }
}
