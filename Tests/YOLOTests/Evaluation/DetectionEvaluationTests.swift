@testable import YOLO
import XCTest

/// `detector map`'s rules on cases worked by hand (the AlexeyAB oracle goldens check whole sets).
final class DetectionEvaluationTests: XCTestCase {
    private func box(_ x: Float, _ y: Float, _ w: Float = 0.2, _ h: Float = 0.2) -> BoundingBox {
        BoundingBox(x: x, y: y, width: w, height: h)
    }

    private func candidate(_ b: BoundingBox, _ probabilities: [Float]) -> Candidate {
        Candidate(box: b, objectness: probabilities.max() ?? 0, probabilities: probabilities)
    }

    /// Ranks TP 0.9, FP 0.8, TP 0.7 over two objects: precision 1, 1/2, 2/3; recall 1/2, 1/2, 1.
    private func twoObjects() -> DetectionEvaluation {
        var evaluation = DetectionEvaluation(classes: 1)
        evaluation.add(candidates: [candidate(box(0.2, 0.2), [0.9]), candidate(box(0.8, 0.8), [0.8]), candidate(box(0.5, 0.5), [0.7])],
                       truth: [LabelBox(classId: 0, box: box(0.2, 0.2)), LabelBox(classId: 0, box: box(0.51, 0.5))])
        return evaluation
    }

    func testAreaUnderCurveAndRecallPoints() {
        let evaluation = twoObjects()
        // Area: 1/2 · 1 (recall 0 → 1/2 at precision 1) + 1/2 · 2/3 (1/2 → 1 at 2/3).
        XCTAssertEqual(evaluation.report(points: 0).averagePrecisions[0], 0.5 + 0.5 * 2.0 / 3.0, accuracy: 1e-12)
        // 11 points: recalls 0…0.5 (6 points) at precision 1, 0.6…1 (5 points) at 2/3.
        XCTAssertEqual(evaluation.report(points: 11).averagePrecisions[0], (6 + 5 * 2.0 / 3.0) / 11, accuracy: 1e-12)
        // 101 points: recalls 0…0.5 (51 points) at 1, 0.51…1 (50 points) at 2/3.
        XCTAssertEqual(evaluation.report(points: 101).averagePrecisions[0], (51 + 50 * 2.0 / 3.0) / 101, accuracy: 1e-12)
    }

    func testCountsAtTheConfidenceThreshold() {
        let report = twoObjects().report(iouThreshold: 0.5, confidenceThreshold: 0.75)
        XCTAssertEqual([report.truePositives, report.falsePositives, report.falseNegatives], [1, 1, 1])
        XCTAssertEqual(report.precision, 0.5)
        XCTAssertEqual(report.recall, 0.5)
        XCTAssertEqual(report.f1, 0.5)
        // The true positive's IoU is 1 (the same box), over one TP and one FP.
        XCTAssertEqual(report.averageIoU, darknetIoU(box(0.2, 0.2), box(0.2, 0.2)) / 2)
        XCTAssertEqual(report.detectionCount, 3)
    }

    /// A second detection of an object already found is a false positive, in the ranking and at
    /// the threshold; a stricter IoU threshold turns the shifted match into a miss.
    func testDuplicatesAndTheIoUThreshold() {
        var evaluation = DetectionEvaluation(classes: 1)
        evaluation.add(candidates: [candidate(box(0.505, 0.5), [0.9]), candidate(box(0.52, 0.5), [0.6])],
                       truth: [LabelBox(classId: 0, box: box(0.5, 0.5))])
        let loose = evaluation.report(iouThreshold: 0.5, confidenceThreshold: 0.25)
        XCTAssertEqual([loose.truePositives, loose.falsePositives], [1, 1])
        XCTAssertEqual(loose.averagePrecisions[0], 1, accuracy: 1e-12)
        // IoUs: 0.195·0.2 / (0.08 − 0.039) = 0.951… and 0.18·0.2 / (0.08 − 0.036) = 0.818…
        let strict = evaluation.report(iouThreshold: 0.85, confidenceThreshold: 0.25)
        XCTAssertEqual([strict.truePositives, strict.falsePositives], [1, 1])
        let strictest = evaluation.report(iouThreshold: 0.96, confidenceThreshold: 0.25)
        XCTAssertEqual([strictest.truePositives, strictest.falsePositives, strictest.falseNegatives], [0, 2, 1])
        XCTAssertEqual(strictest.averagePrecisions[0], 0)
    }

    /// A detection of a `difficult` object leaves the ranking but, as in darknet, still counts as
    /// a false positive at the threshold; a class without objects counts 0 in the mean.
    func testDifficultObjectsAndEmptyClasses() {
        var evaluation = DetectionEvaluation(classes: 2)
        evaluation.add(candidates: [candidate(box(0.2, 0.2), [0.9, 0]), candidate(box(0.7, 0.7), [0.8, 0])],
                       truth: [LabelBox(classId: 0, box: box(0.2, 0.2))],
                       difficult: [LabelBox(classId: 0, box: box(0.7, 0.7))])
        let report = evaluation.report()
        XCTAssertEqual(report.detectionCount, 1)
        XCTAssertEqual([report.truePositives, report.falsePositives], [1, 1])
        XCTAssertEqual(report.averagePrecisions, [1, 0])
        XCTAssertEqual(report.meanAveragePrecision, 0.5)
        XCTAssertEqual(report.truthPerClass, [1, 0])
    }

    /// Each non-zero class probability of a candidate is its own detection, matched within its class.
    func testEveryClassProbabilityIsADetection() {
        var evaluation = DetectionEvaluation(classes: 2)
        evaluation.add(candidates: [candidate(box(0.5, 0.5), [0.3, 0.6])], truth: [LabelBox(classId: 1, box: box(0.5, 0.5))])
        let report = evaluation.report(confidenceThreshold: 0.25)
        XCTAssertEqual(report.threshold.truePositives, [0, 1])
        XCTAssertEqual(report.threshold.falsePositives, [1, 0])
        XCTAssertEqual(report.averagePrecisions, [0, 1])
        XCTAssertEqual(report.precision(ofClass: 1), 1)
        XCTAssertTrue(report.precision(ofClass: 0) == 0)
    }

    /// Equal probabilities keep the order the images and NMS gave them (glibc's `qsort` is a
    /// merge sort): a false positive added first ranks first and halves the precision.
    func testTiesKeepTheirOrder() {
        var evaluation = DetectionEvaluation(classes: 1)
        evaluation.add(candidates: [candidate(box(0.8, 0.8), [0.6])], truth: [])
        evaluation.add(candidates: [candidate(box(0.2, 0.2), [0.6])], truth: [LabelBox(classId: 0, box: box(0.2, 0.2))])
        // Ranks FP, TP: precision 0 then 1/2 at recall 0 then 1; area 1 · 1/2.
        XCTAssertEqual(evaluation.report(points: 0).averagePrecisions[0], 0.5, accuracy: 1e-12)
        var reversed = DetectionEvaluation(classes: 1)
        reversed.add(candidates: [candidate(box(0.2, 0.2), [0.6])], truth: [LabelBox(classId: 0, box: box(0.2, 0.2))])
        reversed.add(candidates: [candidate(box(0.8, 0.8), [0.6])], truth: [])
        XCTAssertEqual(reversed.report(points: 0).averagePrecisions[0], 1, accuracy: 1e-12)
    }

    func testNoDetectionsGiveZeroNotATrap() {
        var evaluation = DetectionEvaluation(classes: 3)
        evaluation.add(candidates: [], truth: [LabelBox(classId: 2, box: box(0.5, 0.5))])
        let report = evaluation.report(points: 11)
        XCTAssertEqual(report.meanAveragePrecision, 0)
        XCTAssertEqual(report.falseNegatives, 1)
        XCTAssertTrue(report.precision.isNaN, "darknet prints -nan: 0 / 0")
    }

    /// COCO's mAP@0.5:0.95 is the mean of the mAPs at the ten thresholds.
    func testCOCOThresholds() {
        let evaluation = twoObjects()
        let expected = (0..<10).map { evaluation.report(iouThreshold: Float(50 + 5 * $0) / 100, points: 101).meanAveragePrecision }
        XCTAssertEqual(evaluation.meanAveragePrecisionOverCOCOThresholds(), expected.reduce(0, +) / 10, accuracy: 1e-12)
        XCTAssertLessThan(evaluation.meanAveragePrecisionOverCOCOThresholds(), evaluation.report(points: 101).meanAveragePrecision)
    }
}
