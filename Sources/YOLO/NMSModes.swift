extension BoundingBox {
    /// AlexeyAB's `box_diounms(a, b, beta1)` (box.c), the DIoU-NMS criterion:
    /// `iou − (d / c)^beta`, with `d` the squared distance between the centres and `c` the
    /// squared diagonal of the smallest box enclosing both (Float, `pow` in double rounded to
    /// Float). When `c == 0` it is the IoU alone. The IoU is `iou(_:)`, so zero-area boxes
    /// give 0, never NaN (AlexeyAB's box_iou also returns 0 there); NaN fields give −∞ so that
    /// such boxes never suppress or get suppressed.
    public func distanceIoU(_ other: BoundingBox, beta: Float = 0.6) -> Float {
        distanceIoU(other, exponent: Double(beta))
    }

    /// `distanceIoU` with the exponent as a double: AlexeyAB's `box_diou` (greedynms) writes the
    /// literal `pow(d / c, 0.6)`, whose 0.6 is not the Float 0.6 `beta_nms` holds.
    public func distanceIoU(_ other: BoundingBox, exponent: Double) -> Float {
        if x.isNaN || y.isNaN || width.isNaN || height.isNaN
            || other.x.isNaN || other.y.isNaN || other.width.isNaN || other.height.isNaN { return -.infinity }
        let top = min(y - height / 2, other.y - other.height / 2)
        let bottom = max(y + height / 2, other.y + other.height / 2)
        let left = min(x - width / 2, other.x - other.width / 2)
        let right = max(x + width / 2, other.x + other.width / 2)
        let w = right - left, h = bottom - top
        let c = w * w + h * h
        let overlap = iou(other)
        if c == 0 { return overlap }
        let d = (x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)
        let u = Float(doublePow(Double(d / c), exponent))
        return overlap - u
    }
}

extension NMS {
    /// The suppression schemes `detections(_:mode:iouThreshold:threshold:maxDetections:)` offers.
    public enum Mode: Sendable, Hashable {
        /// darknet's do_nms_sort: within each class (`perClass`).
        case perClass
        /// Across classes, each candidate scored by its best class (`classAgnostic`).
        case classAgnostic
        /// Core ML / Vision style: argmax class first, then greedy across classes (`coreML`).
        case coreML
        /// darknet's do_nms_obj: by objectness, whole candidates (`byObjectness`).
        case byObjectness
        /// AlexeyAB's diounms_sort with `beta_nms` (`diou`; darknet's default beta is 0.6).
        case diou(beta: Float)
        /// AlexeyAB's `nms_kind=greedynms` (`greedyDIoU`): diounms_sort suppressing by `box_diou`,
        /// the DIoU with the exponent 0.6 — not plain IoU.
        case greedyDIoU
    }

    /// AlexeyAB's diounms_sort (box.c) with `nms_kind = DIOU_NMS`: exactly `perClass`'s steps
    /// (zero-objectness removal by swapping, one stable sort per class, darknet's order), but a
    /// later candidate's score is zeroed when `a.distanceIoU(b, beta:) > iouThreshold`.
    /// DIoU-NMS keeps more of two overlapping boxes whose centres are apart (crowds).
    public static func diou(_ candidates: [Candidate], iouThreshold: Float, beta: Float = 0.6) -> [Candidate] {
        diou(candidates, iouThreshold: iouThreshold, exponent: Double(beta), indexed: true)
    }

    /// AlexeyAB's diounms_sort with `nms_kind = GREEDY_NMS` (`greedynms` in yolov4, yolov4-tiny):
    /// `diou`'s steps, suppressing when `box_diou(a, b) > iouThreshold`, the DIoU with the
    /// double exponent 0.6 (`distanceIoU(_:exponent:)`).
    public static func greedyDIoU(_ candidates: [Candidate], iouThreshold: Float) -> [Candidate] {
        diou(candidates, iouThreshold: iouThreshold, exponent: 0.6, indexed: true)
    }

    /// `indexed: false`: every pair, AlexeyAB's loop. With `NMSIndex` only kept boxes that overlap
    /// are tested: the DIoU is the IoU minus a term ≥ 0 (or NaN), so it passes a threshold ≥ 0
    /// only where the IoU does.
    static func diou(_ candidates: [Candidate], iouThreshold: Float, beta: Float, indexed: Bool) -> [Candidate] {
        diou(candidates, iouThreshold: iouThreshold, exponent: Double(beta), indexed: indexed)
    }

    static func diou(_ candidates: [Candidate], iouThreshold: Float, exponent: Double, indexed: Bool) -> [Candidate] {
        var items = removingZeroObjectness(candidates)
        let total = items.count
        if total == 0 { return [] }
        let classes = items.reduce(0) { max($0, $1.probabilities.count) }
        let boxes = items.map(\.box)
        var index = indexed ? NMSIndex(boxes, threshold: iouThreshold, measure: .distanceIoU) : nil
        var order = Array(0..<total)
        var scores = [Float](repeating: 0, count: total)
        for k in 0..<classes {
            for i in 0..<total {
                let p = items[i].probabilities
                scores[i] = k < p.count ? p[k] : 0
            }
            darknetMergeSort(&order, keys: scores)
            if index != nil {
                index!.removeAll()
                for b in order {
                    if scores[b].bitPattern != 0 {
                        var hit = false
                        index!.forEachCandidate(of: b) { a in
                            hit = boxes[a].distanceIoU(boxes[b], exponent: exponent) > iouThreshold
                            return hit
                        }
                        if hit { scores[b] = 0 }
                    }
                    if scores[b] != 0 { index!.insert(b) }
                }
            } else {
                for i in 0..<total {
                    let a = order[i]
                    if scores[a] == 0 { continue }
                    for j in (i + 1)..<total {
                        let b = order[j]
                        if boxes[a].distanceIoU(boxes[b], exponent: exponent) > iouThreshold { scores[b] = 0 }
                    }
                }
            }
            for i in 0..<total where k < items[i].probabilities.count { items[i].probabilities[k] = scores[i] }
        }
        return order.map { items[$0] }
    }

    /// Core ML / Vision-style NMS (the `NonMaximumSuppression` model with `perClass = false`,
    /// Turi Create's exported detectors): each candidate becomes one detection of its argmax
    /// class (lowest index on ties, NaN never wins) with that probability; detections not
    /// `> confidenceThreshold` are dropped; the rest are sorted by confidence descending
    /// (stable: input order breaks ties) and walked greedily — a detection is kept unless its
    /// IoU with an already kept one, of any class, is `> iouThreshold`. Objectness is ignored.
    /// Returns the kept detections, highest confidence first.
    public static func coreML(_ candidates: [Candidate], iouThreshold: Float,
                              confidenceThreshold: Float = 0) -> [Detection] {
        var pool: [Detection] = []
        for candidate in candidates {
            guard let best = argmax(candidate.probabilities) else { continue }
            let confidence = candidate.probabilities[best]
            if confidence > confidenceThreshold {
                pool.append(Detection(classId: best, confidence: confidence, box: candidate.box))
            }
        }
        return greedy(pool, iouThreshold: iouThreshold)
    }

    /// Greedy NMS across classes on detections: stable sort by confidence descending, keep
    /// each one whose IoU with every kept one is `<= iouThreshold`.
    public static func greedy(_ detections: [Detection], iouThreshold: Float) -> [Detection] {
        greedy(detections, iouThreshold: iouThreshold, indexed: true)
    }

    /// `indexed: false`: each candidate against every kept one (the reference for `NMSIndex`).
    static func greedy(_ detections: [Detection], iouThreshold: Float, indexed: Bool) -> [Detection] {
        var order = Array(detections.indices)
        darknetMergeSort(&order, keys: detections.map(\.confidence))
        var kept: [Detection] = []
        let boxes = detections.map(\.box)
        if indexed, var index = NMSIndex(boxes, threshold: iouThreshold, measure: .guardedIoU) {
            for b in order {
                var hit = false
                index.forEachCandidate(of: b) { a in
                    hit = !(boxes[a].iou(boxes[b]) <= iouThreshold)
                    return hit
                }
                if !hit {
                    kept.append(detections[b])
                    index.insert(b)
                }
            }
            return kept
        }
        for index in order {
            let candidate = detections[index]
            if kept.allSatisfy({ $0.box.iou(candidate.box) <= iouThreshold }) {
                kept.append(candidate)
            }
        }
        return kept
    }

    /// The `maxDetections` detections of highest confidence (ties: the earlier one), in their
    /// original order. `nil` or a count at least `detections.count` returns them unchanged;
    /// 0 or less returns none.
    public static func limit(_ detections: [Detection], maxDetections: Int?) -> [Detection] {
        guard let maxDetections, maxDetections < detections.count else { return detections }
        if maxDetections <= 0 { return [] }
        var order = Array(detections.indices)
        darknetMergeSort(&order, keys: detections.map(\.confidence))
        return order.prefix(maxDetections).sorted().map { detections[$0] }
    }

    /// Suppression then thresholding in one call: runs `mode`, turns the result into
    /// detections — every (candidate, class) with probability `> threshold`, as
    /// `detections(from:threshold:)` does (for `.coreML`, `threshold` is the confidence
    /// threshold) — and keeps at most `maxDetections` of them (see `limit`).
    public static func detections(_ candidates: [Candidate], mode: Mode, iouThreshold: Float,
                                  threshold: Float, maxDetections: Int? = nil) -> [Detection] {
        let result: [Detection]
        switch mode {
        case .perClass:
            result = YOLO.detections(from: perClass(candidates, iouThreshold: iouThreshold), threshold: threshold)
        case .classAgnostic:
            result = YOLO.detections(from: classAgnostic(candidates, iouThreshold: iouThreshold), threshold: threshold)
        case .coreML:
            result = coreML(candidates, iouThreshold: iouThreshold, confidenceThreshold: threshold)
        case .byObjectness:
            result = YOLO.detections(from: byObjectness(candidates, iouThreshold: iouThreshold), threshold: threshold)
        case .diou(let beta):
            result = YOLO.detections(from: diou(candidates, iouThreshold: iouThreshold, beta: beta), threshold: threshold)
        case .greedyDIoU:
            result = YOLO.detections(from: greedyDIoU(candidates, iouThreshold: iouThreshold), threshold: threshold)
        }
        return limit(result, maxDetections: maxDetections)
    }

    /// Index of the largest value (first on ties, NaN never), nil when empty or all NaN.
    static func argmax(_ values: [Float]) -> Int? {
        var best: Int?
        for (i, v) in values.enumerated() where !v.isNaN {
            if let b = best { if v > values[b] { best = i } } else { best = i }
        }
        return best
    }
}
