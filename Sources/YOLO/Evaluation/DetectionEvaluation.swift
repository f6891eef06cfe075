/// Precision, recall and mean average precision of a detector on a labelled set, computed as
/// AlexeyAB's `detector map` computes them (`validate_detector_map`, detector.c).
///
/// Feed it each image's candidates after NMS (`Detector.candidates`, at darknet's 0.005
/// threshold), in the order NMS leaves them, with the image's ground truth; then `report` for
/// an IoU threshold, a confidence threshold and a recall-point count. darknet's rules, step by step:
/// 1. every non-zero class probability of every candidate is one detection; it is matched to
///    the ground-truth box of its class with the highest IoU above the IoU threshold (strictly),
///    whether or not another detection matched that box already;
/// 2. an unmatched detection that overlaps a `difficult` box of its class is dropped from the
///    ranking (but, as in darknet, still counts as a false positive at the confidence threshold);
/// 3. at the confidence threshold (strictly above it): a matched detection is a true positive
///    unless an earlier detection of the same image matched the same box, else a false positive;
///    the average IoU is over both;
/// 4. the detections of all images are sorted by probability, highest first (stably, as glibc's
///    merge-sort `qsort`), and walked once: the first to reach a ground-truth box is a true
///    positive, later ones false positives; each class's precision and recall are taken at every rank;
/// 5. a class's AP is the area under its interpolated precision–recall curve (`points` 0), or
///    the mean of the interpolated precision at `points` evenly spaced recalls (11: VOC2007,
///    101: COCO); the mAP is the mean over all classes, those without objects included.
public struct DetectionEvaluation: Sendable {
    /// One detection: a candidate's box with one of its non-zero class probabilities.
    struct Scored: Sendable {
        var box: BoundingBox
        var probability: Float
        var classId: Int
    }

    struct Sample: Sendable {
        var detections: [Scored]
        var truth: [LabelBox]
        var difficult: [LabelBox]
    }

    /// The model's class count (what label classes and probabilities index).
    public let classes: Int
    private(set) var samples: [Sample] = []

    public init(classes: Int) {
        self.classes = classes
    }

    /// Images added so far.
    public var imageCount: Int { samples.count }

    /// Adds one image: its candidates after NMS in NMS's order (boxes relative to the image), its
    /// ground truth and its `difficult` objects (boxes whose detections are neither rewarded nor
    /// penalised in the ranking). Labels must have classes below `classes`.
    public mutating func add(candidates: [Candidate], truth: [LabelBox], difficult: [LabelBox] = []) {
        var detections: [Scored] = []
        for candidate in candidates {
            for (classId, probability) in candidate.probabilities.prefix(classes).enumerated() where probability > 0 {
                detections.append(Scored(box: candidate.box, probability: probability, classId: classId))
            }
        }
        samples.append(Sample(detections: detections, truth: truth, difficult: difficult))
    }

    /// The figures `detector map` prints, for matches above `iouThreshold` (`-iou_thresh`,
    /// 0.5), counts at `confidenceThreshold` (`-thresh`, 0.25) and `points` recall points
    /// (`-points`: 0 for the area under the curve, else at least 2).
    public func report(iouThreshold: Float = 0.5, confidenceThreshold: Float = 0.25, points: Int = 0) -> EvaluationReport {
        precondition(points == 0 || points >= 2, "points: 0 (area under the curve) or at least 2, got \(points)")
        var ranked: [RankedDetection] = []
        var truthPerClass = [Int](repeating: 0, count: classes)
        var uniqueTruth = 0
        var threshold = ThresholdCounts(classes: classes)
        for sample in samples {
            for label in sample.truth { truthPerClass[label.classId] += 1 }
            let checkpoint = ranked.count
            for detection in sample.detections {
                var truthIndex = -1
                var maxIoU: Float = 0
                for (j, label) in sample.truth.enumerated() where detection.classId == label.classId {
                    let iou = darknetIoU(detection.box, label.box)
                    if iou > iouThreshold && iou > maxIoU {
                        maxIoU = iou
                        truthIndex = uniqueTruth + j
                    }
                }
                let dropped = truthIndex < 0 && sample.difficult.contains {
                    $0.classId == detection.classId && darknetIoU(detection.box, $0.box) > iouThreshold
                }
                if !dropped {
                    ranked.append(RankedDetection(probability: detection.probability, classId: detection.classId, truthIndex: truthIndex))
                }
                guard detection.probability > confidenceThreshold else { continue }
                // A true positive unless one of this image's earlier detections (the one just
                // ranked left out) matched the same box. A matched detection is never dropped.
                if truthIndex >= 0 && !ranked[checkpoint..<(ranked.count - 1)].contains(where: { $0.truthIndex == truthIndex }) {
                    threshold.truePositive(detection.classId, iou: maxIoU)
                } else {
                    threshold.falsePositive(detection.classId)
                }
            }
            uniqueTruth += sample.truth.count
        }
        let averagePrecisions = Self.averagePrecisions(ranked, classes: classes, truthPerClass: truthPerClass,
                                                       uniqueTruth: uniqueTruth, points: points)
        return EvaluationReport(iouThreshold: iouThreshold, confidenceThreshold: confidenceThreshold, points: points,
                                averagePrecisions: averagePrecisions, truthPerClass: truthPerClass,
                                detectionCount: ranked.count, threshold: threshold)
    }

    /// The mean of the mAP at COCO's ten IoU thresholds, 0.50, 0.55 … 0.95, each computed by
    /// darknet's rules above (a line darknet does not print).
    public func meanAveragePrecisionOverCOCOThresholds(confidenceThreshold: Float = 0.25, points: Int = 101) -> Double {
        let thresholds = (0..<10).map { Float(50 + 5 * $0) / 100 }
        return thresholds.map { report(iouThreshold: $0, confidenceThreshold: confidenceThreshold, points: points).meanAveragePrecision }
            .reduce(0, +) / 10
    }

    struct RankedDetection {
        var probability: Float
        var classId: Int
        /// The matched ground truth's index over the whole set, -1 without a match.
        var truthIndex: Int
    }

    /// Step 4 and 5: each class's AP from the ranking.
    static func averagePrecisions(_ detections: [RankedDetection], classes: Int, truthPerClass: [Int], uniqueTruth: Int,
                                  points: Int) -> [Double] {
        // darknet's qsort with `detections_comparator` (probability descending) is glibc's
        // merge sort: stable.
        let sorted = detections.enumerated().sorted { a, b in
            a.element.probability != b.element.probability ? a.element.probability > b.element.probability : a.offset < b.offset
        }.map(\.element)
        let count = sorted.count
        guard count > 0 else { return [Double](repeating: 0, count: classes) }
        // precision[c][rank], recall[c][rank]: darknet's pr[c][rank] after each rank.
        var precision = [[Double]](repeating: [Double](repeating: 0, count: count), count: classes)
        var recall = precision
        var tp = [Int](repeating: 0, count: classes), fp = tp
        var reached = [Bool](repeating: false, count: uniqueTruth)
        for (rank, detection) in sorted.enumerated() {
            if detection.truthIndex >= 0 && !reached[detection.truthIndex] {
                reached[detection.truthIndex] = true
                tp[detection.classId] += 1
            } else {
                fp[detection.classId] += 1
            }
            for c in 0..<classes {
                let fn = truthPerClass[c] - tp[c]
                precision[c][rank] = tp[c] + fp[c] > 0 ? Double(tp[c]) / Double(tp[c] + fp[c]) : 0
                recall[c][rank] = tp[c] + fn > 0 ? Double(tp[c]) / Double(tp[c] + fn) : 0
            }
        }
        return (0..<classes).map { c in
            points == 0 ? areaUnderCurve(precision[c], recall[c]) : interpolated(precision[c], recall[c], points: points)
        }
    }

    /// darknet's `map_points == 0` branch: from the last rank back, the recall gained times
    /// the highest precision seen so far, then the rest of the recall down to 0.
    static func areaUnderCurve(_ precision: [Double], _ recall: [Double]) -> Double {
        var lastRecall = recall[recall.count - 1]
        var lastPrecision = precision[precision.count - 1]
        var area = 0.0
        for rank in stride(from: recall.count - 2, through: 0, by: -1) {
            let delta = lastRecall - recall[rank]
            lastRecall = recall[rank]
            if precision[rank] > lastPrecision { lastPrecision = precision[rank] }
            area += delta * lastPrecision
        }
        return area + lastRecall * lastPrecision
    }

    /// darknet's `map_points > 0` branch: at each recall `point / (points − 1)`, the highest
    /// precision of any rank whose recall reaches it; their mean.
    static func interpolated(_ precision: [Double], _ recall: [Double], points: Int) -> Double {
        var sum = 0.0
        for point in 0..<points {
            let target = Double(point) * 1.0 / Double(points - 1)
            var best = 0.0
            for rank in recall.indices where recall[rank] >= target && precision[rank] > best { best = precision[rank] }
            sum += best
        }
        return sum / Double(points)
    }
}
