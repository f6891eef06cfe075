/// One AlexeyAB `[Gaussian_yolo]` head (Gaussian YOLOv3, gaussian_yolo_layer.c): for each
/// anchor and cell, a mean and a standard deviation for each box coordinate, then objectness
/// and the class scores. The scores are weighted down by the box's uncertainty.
///
/// Output layout (`entry_gaussian_index`): CHW, `mask.count` blocks of `9 + classes` planes of
/// `gridHeight × gridWidth` floats: 0 μx, 1 σx, 2 μy, 3 σy, 4 μw, 5 σw, 6 μh, 7 σh,
/// 8 objectness, 9… class scores.
public struct GaussianYOLOHead: Sendable, Hashable {
    /// Which point of the box μx, μy place (`yolo_point`).
    public enum Point: String, Sendable, Hashable, CaseIterable {
        case center
        case leftTop = "left_top"
        case rightBottom = "right_bottom"
    }

    /// All anchor pairs `(w, h)` in network pixels.
    public var anchors: [Float]
    /// Indices of the anchor pairs this head predicts, in output order.
    public var mask: [Int]
    public var classes: Int
    /// `scale_x_y`: μx and μy become `μ·scale − (scale − 1)/2` after the logistic.
    public var scaleXY: Float
    public var point: Point

    public init(anchors: [Float], mask: [Int], classes: Int, scaleXY: Float = 1, point: Point = .center) {
        self.anchors = anchors
        self.mask = mask
        self.classes = classes
        self.scaleXY = scaleXY
        self.point = point
    }

    /// Floats per anchor and cell: 8 box values, objectness, then `classes` scores.
    public var entriesPerAnchor: Int { 9 + classes }

    /// The head as a plain `YOLOHead` (same anchors, mask, classes): what `validate` checks.
    var plain: YOLOHead { YOLOHead(anchors: anchors, mask: mask, classes: classes) }

    /// Checks the head as `YOLOHead.validate` does.
    public func validate() throws(YOLOError) { try plain.validate() }

    /// Floats of the head's output on a grid, `mask.count × (9 + classes) × gridHeight × gridWidth`.
    public func outputCount(gridWidth: Int, gridHeight: Int) throws(YOLOError) -> Int {
        // A YOLOHead with 4 more classes has the same entries per anchor and the same checks.
        try YOLOHead(anchors: anchors, mask: mask, classes: classes + 4).outputCount(gridWidth: gridWidth, gridHeight: gridHeight)
    }
}

/// Decodes `[Gaussian_yolo]` outputs as AlexeyAB's get_gaussian_yolo_detections does.
public enum GaussianYOLODecoder {
    /// forward_gaussian_yolo_layer's activation, in place, on raw logits: the logistic on μx, σx,
    /// μy, σy, σw, σh, objectness and the class scores (darknet's double-precision logistic),
    /// then `scale_x_y` on μx and μy; μw and μh stay raw. (The engine's layer does this itself.)
    public static func applyActivation(_ output: UnsafeMutableBufferPointer<Float>, gridWidth: Int, gridHeight: Int,
                                       head: GaussianYOLOHead) throws(YOLOError) {
        let expected = try head.outputCount(gridWidth: gridWidth, gridHeight: gridHeight)
        try checkCount(expected, output.count, gridWidth, gridHeight, head)
        let plane = gridWidth * gridHeight
        let block = plane * head.entriesPerAnchor
        let beta = Float(-0.5 * (Double(head.scaleXY) - 1))
        for n in 0..<head.mask.count {
            let base = n * block
            for entry in [0, 1, 2, 3, 5, 7] {
                for i in 0..<plane { output[base + entry * plane + i] = darknetLogistic(output[base + entry * plane + i]) }
            }
            for i in (base + 8 * plane)..<(base + block) { output[i] = darknetLogistic(output[i]) }
            if head.scaleXY != 1 {
                for entry in [0, 2] {
                    for i in 0..<plane { output[base + entry * plane + i] = output[base + entry * plane + i] * head.scaleXY + beta }
                }
            }
        }
    }

    /// Candidates of one head, post-activation, in darknet's order (cells row-major, then
    /// anchors), boxes normalised to the network input:
    /// - a slot is kept if its objectness is `> threshold`;
    /// - box `((col + μx)/gridW, (row + μy)/gridH, exp(μw)·anchorW/netW, exp(μh)·anchorH/netH)`
    ///   (the sizes in double, rounded to Float), moved by half its size for `left_top`
    ///   (`+`) and `right_bottom` (`−`);
    /// - `uncertainty` = (σx, σy, σw, σh) and, with `u` their mean (`(σx+σy+σw+σh)/4.0`),
    ///   probability[j] = `objectness·score[j]·(1 − u)` (the product in Float, the weighting in
    ///   double), kept if `> threshold`, else 0.
    public static func decode(_ output: UnsafeBufferPointer<Float>, gridWidth: Int, gridHeight: Int,
                              head: GaussianYOLOHead, networkWidth: Int, networkHeight: Int,
                              threshold: Float) throws(YOLOError) -> [Candidate] {
        let expected = try head.outputCount(gridWidth: gridWidth, gridHeight: gridHeight)
        if networkWidth < 1 || networkHeight < 1 { throw .nonPositiveNetworkSize(width: networkWidth, height: networkHeight) }
        try checkCount(expected, output.count, gridWidth, gridHeight, head)
        let plane = gridWidth * gridHeight
        let block = plane * head.entriesPerAnchor
        let gridW = Float(gridWidth), gridH = Float(gridHeight)
        let netW = Double(networkWidth), netH = Double(networkHeight)
        var candidates: [Candidate] = []
        for i in 0..<plane {
            let row = i / gridWidth, col = i % gridWidth
            for n in 0..<head.mask.count {
                let base = n * block + i
                let value = { (entry: Int) in output[base + entry * plane] }
                let objectness = value(8)
                if !(objectness > threshold) { continue }
                let anchor = head.mask[n]
                let width = Float(doubleExp(Double(value(4))) * Double(head.anchors[2 * anchor]) / netW)
                let height = Float(doubleExp(Double(value(6))) * Double(head.anchors[2 * anchor + 1]) / netH)
                var x = (Float(col) + value(0)) / gridW
                var y = (Float(row) + value(2)) / gridH
                switch head.point {
                case .center: break
                case .leftTop: x += width / 2; y += height / 2
                case .rightBottom: x -= width / 2; y -= height / 2
                }
                let uncertainty = BoxUncertainty(x: value(1), y: value(3), width: value(5), height: value(7))
                let weight = 1.0 - Double(uncertainty.mean)
                var probabilities = [Float](repeating: 0, count: head.classes)
                for j in 0..<head.classes {
                    let probability = Float(Double(objectness * value(9 + j)) * weight)
                    probabilities[j] = probability > threshold ? probability : 0
                }
                var candidate = Candidate(box: BoundingBox(x: x, y: y, width: width, height: height), objectness: objectness,
                                          probabilities: probabilities)
                candidate.uncertainty = uncertainty
                candidates.append(candidate)
            }
        }
        return candidates
    }

    private static func checkCount(_ expected: Int, _ actual: Int, _ gridWidth: Int, _ gridHeight: Int,
                                   _ head: GaussianYOLOHead) throws(YOLOError) {
        if expected != actual {
            throw .outputSizeMismatch(expected: expected, actual: actual, gridWidth: gridWidth, gridHeight: gridHeight,
                                      maskCount: head.mask.count, classes: head.classes)
        }
    }
}

/// A `[Gaussian_yolo]` box's standard deviations (after the logistic, in (0, 1)): how unsure
/// the network is of each coordinate.
public struct BoxUncertainty: Sendable, Hashable {
    public var x: Float, y: Float, width: Float, height: Float

    public init(x: Float, y: Float, width: Float, height: Float) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// darknet's `uc_aver`: the Float sum of the four, divided by 4.0 in double, rounded to Float.
    public var mean: Float { Float(Double(x + y + width + height) / 4.0) }
}
