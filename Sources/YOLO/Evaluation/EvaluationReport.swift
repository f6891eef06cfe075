/// The counts at the confidence threshold (`-thresh`): true and false positives per class and
/// the IoU of the true positives, accumulated in Float as darknet does.
public struct ThresholdCounts: Sendable, Hashable {
    public private(set) var truePositives: [Int]
    public private(set) var falsePositives: [Int]
    /// Sum of the IoUs of the true positives, per class.
    var iouSums: [Float]
    var iouSum: Float = 0

    init(classes: Int) {
        truePositives = [Int](repeating: 0, count: classes)
        falsePositives = truePositives
        iouSums = [Float](repeating: 0, count: classes)
    }

    mutating func truePositive(_ classId: Int, iou: Float) {
        truePositives[classId] += 1
        iouSums[classId] += iou
        iouSum += iou
    }

    mutating func falsePositive(_ classId: Int) { falsePositives[classId] += 1 }
}

/// What `detector map` prints, from `DetectionEvaluation.report`.
public struct EvaluationReport: Sendable, Hashable {
    public var iouThreshold: Float
    public var confidenceThreshold: Float
    /// 0: the area under each class's precision–recall curve; else the recall points.
    public var points: Int
    /// Each class's average precision (0...1).
    public var averagePrecisions: [Double]
    /// Ground-truth objects per class.
    public var truthPerClass: [Int]
    /// Detections ranked (every non-zero class probability, less those dropped for `difficult` boxes).
    public var detectionCount: Int
    /// True and false positives at the confidence threshold.
    public var threshold: ThresholdCounts

    /// The mean of `averagePrecisions` over every class, those without objects included (darknet's divisor).
    public var meanAveragePrecision: Double {
        averagePrecisions.isEmpty ? 0 : averagePrecisions.reduce(0, +) / Double(averagePrecisions.count)
    }

    public var truthCount: Int { truthPerClass.reduce(0, +) }
    public var truePositives: Int { threshold.truePositives.reduce(0, +) }
    public var falsePositives: Int { threshold.falsePositives.reduce(0, +) }
    /// Objects no detection above the confidence threshold found.
    public var falseNegatives: Int { truthCount - truePositives }

    /// `tp / (tp + fp)` in Float, as darknet prints it (NaN without detections above the threshold).
    public var precision: Float { Float(truePositives) / (Float(truePositives) + Float(falsePositives)) }
    /// `tp / (tp + fn)` in Float (NaN without objects).
    public var recall: Float { Float(truePositives) / (Float(truePositives) + Float(falseNegatives)) }
    public var f1: Float { 2 * precision * recall / (precision + recall) }

    /// darknet's average IoU: the true positives' IoUs summed, over true and false positives.
    public var averageIoU: Float {
        let count = truePositives + falsePositives
        return count > 0 ? threshold.iouSum / Float(count) : 0
    }

    /// The same for one class.
    public func averageIoU(ofClass classId: Int) -> Float {
        let count = threshold.truePositives[classId] + threshold.falsePositives[classId]
        return count > 0 ? threshold.iouSums[classId] / Float(count) : 0
    }

    /// One class's precision at the confidence threshold (NaN without detections).
    public func precision(ofClass classId: Int) -> Float {
        let tp = Float(threshold.truePositives[classId])
        return tp / (tp + Float(threshold.falsePositives[classId]))
    }

    /// One class's recall at the confidence threshold (NaN without objects).
    public func recall(ofClass classId: Int) -> Float {
        let tp = Float(threshold.truePositives[classId])
        return tp / (tp + Float(truthPerClass[classId] - threshold.truePositives[classId]))
    }
}
