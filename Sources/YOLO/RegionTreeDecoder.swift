/// How a `[region]` head with a class tree (YOLO9000) picks its class: the two darknets differ.
public enum TreeDecoding: Sendable, Hashable {
    /// pjreddie's get_region_detections: `hierarchy_top_prediction` descends the tree while the
    /// running product stays above `hierarchyThreshold` (`detector test -hier`, 0.5), and the
    /// class it stops at gets the objectness as its probability.
    case pjreddie(hierarchyThreshold: Float)
    /// AlexeyAB's get_region_boxes (through custom_get_region_detections): the last class, in
    /// tree order, whose path probability is above 0.5 keeps that path probability.
    case alexeyAB
}

/// Decodes a `[region]` head with a class tree (`tree=`, YOLO9000) into candidates.
public enum RegionTreeDecoder {
    /// The head's candidates from its activated output (`[region]`'s forward with the tree:
    /// logistic x, y and objectness, a softmax across each tree group of each slot's class
    /// scores, w and h raw), laid out as `YOLODecoder` documents with `head.anchorCount` slots:
    /// - box as get_region_box: `((col + x)/gridW, (row + y)/gridH, exp(w)·anchorW/gridW,
    ///   exp(h)·anchorH/gridH)`, the exponentials in double;
    /// - a slot whose objectness is not above `threshold`: pjreddie's keeps it with objectness 0
    ///   and no probability (his NMS swaps it to the end, which orders ties; see
    ///   `DecodeOptions.keepsEveryRegionSlot`), AlexeyAB's gives no candidate (his objectness
    ///   is 1 everywhere, so nothing is swapped and such slots change no order);
    /// - the path probabilities (`ClassTree.hierarchyPredictions`, inner classes kept), then
    ///   one class per slot as `decoding` says, its probability kept only when the objectness
    ///   is above `threshold` (both darknets test the objectness, not the product).
    /// Order: pjreddie's anchors outermost, then cells (`dets[n·w·h + cell]`); AlexeyAB's cells
    /// outermost, then anchors (`boxes[cell·n + n]`). NMS ties keep this order.
    public static func decode(
        _ output: UnsafeBufferPointer<Float>, gridWidth: Int, gridHeight: Int, head: RegionHead, tree: ClassTree,
        decoding: TreeDecoding, threshold: Float
    ) throws(YOLOError) -> [Candidate] {
        try head.validate()
        if gridWidth < 1 || gridHeight < 1 { throw .nonPositiveGrid(width: gridWidth, height: gridHeight) }
        let classes = head.classes
        if tree.count != classes { throw .treeClassMismatch(treeClasses: tree.count, classes: classes) }
        let plane = gridWidth * gridHeight
        let entries = 5 + classes
        let expected = head.anchorCount * entries * plane
        if output.count != expected {
            throw .outputSizeMismatch(expected: expected, actual: output.count, gridWidth: gridWidth, gridHeight: gridHeight,
                                      maskCount: head.anchorCount, classes: classes)
        }
        let slots = head.anchorCount * plane
        var scores = [Float](repeating: 0, count: classes)
        var candidates: [Candidate] = []
        for slot in 0..<slots {
            let (n, cell) = switch decoding {
            case .pjreddie: (slot / plane, slot % plane)
            case .alexeyAB: (slot % head.anchorCount, slot / head.anchorCount)
            }
            let base = n * entries * plane + cell
            let objectness = output[base + 4 * plane]
            if !(objectness > threshold) {
                if case .pjreddie = decoding {
                    candidates.append(Candidate(box: BoundingBox(x: 0, y: 0, width: 0, height: 0), objectness: 0,
                                                probabilities: [Float](repeating: 0, count: classes)))
                }
                continue
            }
            let (row, col) = (cell / gridWidth, cell % gridWidth)
            let box = BoundingBox(
                x: (Float(col) + output[base]) / Float(gridWidth),
                y: (Float(row) + output[base + plane]) / Float(gridHeight),
                width: Float(doubleExp(Double(output[base + 2 * plane])) * Double(head.anchors[2 * n]) / Double(gridWidth)),
                height: Float(doubleExp(Double(output[base + 3 * plane])) * Double(head.anchors[2 * n + 1]) / Double(gridHeight)))
            for j in 0..<classes { scores[j] = output[base + (5 + j) * plane] }
            tree.hierarchyPredictions(&scores, onlyLeaves: false)
            var probabilities = [Float](repeating: 0, count: classes)
            switch decoding {
            case .pjreddie(let hierarchyThreshold):
                let j = scores.withUnsafeBufferPointer { tree.topPrediction($0.baseAddress!, threshold: hierarchyThreshold) }
                probabilities[j] = objectness
            case .alexeyAB:
                if let j = (0..<classes).last(where: { scores[$0] > 0.5 }) { probabilities[j] = scores[j] }
            }
            candidates.append(Candidate(box: box, objectness: objectness, probabilities: probabilities))
        }
        return candidates
    }
}
