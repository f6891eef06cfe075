import XCTest
@testable import YOLO

final class NMSModesTests: XCTestCase {
    // Same boxes as NMSTests: a and b overlap with IoU 0.1171875 / 0.1640625 = 0.7142857;
    // c is far from both.
    let a = BoundingBox(left: 0.125, top: 0.125, right: 0.5, bottom: 0.5)
    let b = BoundingBox(left: 0.1875, top: 0.125, right: 0.5625, bottom: 0.5)
    let c = BoundingBox(left: 0.75, top: 0.75, right: 0.875, bottom: 0.875)
    let zeroArea = BoundingBox(x: 0.3, y: 0.3, width: 0, height: 0.2)

    func make(_ box: BoundingBox, _ probabilities: [Float], objectness: Float = 1) -> Candidate {
        Candidate(box: box, objectness: objectness, probabilities: probabilities)
    }

    /// Centres 0.0625 apart: d = 0.0625² = 0.00390625; enclosing box 0.4375 x 0.375, c =
    /// 0.4375² + 0.375² = 0.33203125; (d/c)^0.6 = 0.0695582; DIoU = 0.7142857 − 0.0695582 = 0.6447275.
    func testDistanceIoUOnHandWorkedNumbers() {
        XCTAssertEqual(a.distanceIoU(b), 0.6447275, accuracy: 1e-6)
        XCTAssertEqual(a.distanceIoU(b, beta: 1), 0.7142857 - 0.00390625 / 0.33203125, accuracy: 1e-6)
        // Same centre: d = 0, so DIoU = IoU.
        XCTAssertEqual(a.distanceIoU(a), a.iou(a))
        // Zero-area boxes: IoU 0, never NaN; identical points (c = 0) give the IoU, 0.
        XCTAssertEqual(zeroArea.iou(zeroArea), 0)
        XCTAssertFalse(zeroArea.distanceIoU(a).isNaN)
        let point = BoundingBox(x: 0.5, y: 0.5, width: 0, height: 0)
        XCTAssertEqual(point.distanceIoU(point), 0)
        XCTAssertEqual(BoundingBox(x: .nan, y: 0, width: 1, height: 1).distanceIoU(a), -.infinity)
    }

    func testDIoUKeepsOverlappingBoxesWithDistantCentresThatIoUNMSRemoves() {
        let input = [make(a, [0.9]), make(b, [0.8]), make(c, [0.7])]
        // Threshold 0.68: IoU 0.714 > 0.68 suppresses b; DIoU 0.645 does not.
        XCTAssertEqual(NMS.perClass(input, iouThreshold: 0.68).map(\.probabilities), [[0.9], [0], [0.7]])
        XCTAssertEqual(NMS.diou(input, iouThreshold: 0.68).map(\.probabilities), [[0.9], [0.8], [0.7]])
        // Threshold 0.6: both suppress b.
        XCTAssertEqual(NMS.diou(input, iouThreshold: 0.6).map(\.probabilities), [[0.9], [0], [0.7]])
        // A larger beta shrinks the penalty ((d/c) < 1), so b is suppressed at 0.68 with beta 2.
        XCTAssertEqual(NMS.diou(input, iouThreshold: 0.68, beta: 2).map(\.probabilities), [[0.9], [0], [0.7]])
    }

    func testPerClassVersusAgnosticVersusCoreMLOnTwoClasses() {
        // a is class 0 (0.9), b is class 1 (0.8) and overlaps a; c is class 1 (0.7).
        let input = [make(a, [0.9, 0.05]), make(b, [0.05, 0.8]), make(c, [0, 0.7])]
        let perClass = NMS.detections(input, mode: .perClass, iouThreshold: 0.5, threshold: 0.5)
        // Nothing suppressed: darknet's final order is class 1's sort (b 0.8, c 0.7, a 0.05 -> a's class 0).
        XCTAssertEqual(perClass.map(\.classId), [1, 1, 0], "different classes do not suppress each other")
        let agnostic = NMS.detections(input, mode: .classAgnostic, iouThreshold: 0.5, threshold: 0.5)
        XCTAssertEqual(agnostic.map(\.box), [a, c])
        let coreML = NMS.detections(input, mode: .coreML, iouThreshold: 0.5, threshold: 0.5)
        XCTAssertEqual(coreML, [Detection(classId: 0, confidence: 0.9, box: a), Detection(classId: 1, confidence: 0.7, box: c)])
        let diou = NMS.detections(input, mode: .diou(beta: 0.6), iouThreshold: 0.5, threshold: 0.5)
        XCTAssertEqual(diou.map(\.classId), [1, 1, 0])
        let byObjectness = NMS.detections([make(a, [0.9, 0], objectness: 0.9), make(b, [0, 0.8], objectness: 0.8)],
                                          mode: .byObjectness, iouThreshold: 0.5, threshold: 0.5)
        XCTAssertEqual(byObjectness.map(\.box), [a])
    }

    func testCoreMLArgmaxThresholdAndTies() {
        // Argmax ties pick the lowest class; equal confidences keep input order; <= threshold dropped.
        let input = [make(c, [0.6, 0.6]), make(a, [0.2, 0.7]), make(b, [0.7, 0.1]), make(c, [0.3, 0.3])]
        let result = NMS.coreML(input, iouThreshold: 0.5, confidenceThreshold: 0.3)
        XCTAssertEqual(result, [Detection(classId: 1, confidence: 0.7, box: a), Detection(classId: 0, confidence: 0.6, box: c)],
                       "a (0.7) wins the tie with b (0.7, later), b overlaps a; c's 0.3 is not above 0.3")
        XCTAssertEqual(NMS.coreML([], iouThreshold: 0.5), [])
        XCTAssertEqual(NMS.coreML([make(a, [])], iouThreshold: 0.5), [])
        XCTAssertEqual(NMS.coreML([make(a, [.nan, 0.4])], iouThreshold: 0.5).map(\.classId), [1])
    }

    func testEveryModeOnEmptyInputAndZeroAreaBoxes() {
        let modes: [NMS.Mode] = [.perClass, .classAgnostic, .coreML, .byObjectness, .diou(beta: 0.6)]
        for mode in modes {
            XCTAssertEqual(NMS.detections([], mode: mode, iouThreshold: 0.5, threshold: 0.1), [], "\(mode)")
            // Two identical zero-area boxes: IoU 0, so neither suppresses the other.
            let result = NMS.detections([make(zeroArea, [0.9]), make(zeroArea, [0.8])], mode: mode, iouThreshold: 0.5, threshold: 0.1)
            XCTAssertEqual(result.map(\.confidence), [0.9, 0.8], "\(mode)")
        }
    }

    func testEveryModeBreaksTiesByInputOrder() {
        let modes: [NMS.Mode] = [.perClass, .classAgnostic, .coreML, .byObjectness, .diou(beta: 0.6)]
        for mode in modes {
            let first = NMS.detections([make(a, [0.5]), make(b, [0.5])], mode: mode, iouThreshold: 0.5, threshold: 0.1)
            XCTAssertEqual(first.map(\.box), [a], "\(mode)")
            let second = NMS.detections([make(b, [0.5]), make(a, [0.5])], mode: mode, iouThreshold: 0.5, threshold: 0.1)
            XCTAssertEqual(second.map(\.box), [b], "\(mode)")
        }
    }

    func testMaxDetectionsKeepsTheHighestInTheirOrder() {
        let far = BoundingBox(x: 0.1, y: 0.9, width: 0.05, height: 0.05)
        let input = [make(c, [0.6]), make(a, [0.9]), make(far, [0.6]), make(b, [0.2], objectness: 0.2)]
        let modes: [NMS.Mode] = [.perClass, .classAgnostic, .coreML, .byObjectness, .diou(beta: 0.6)]
        for mode in modes {
            let all = NMS.detections(input, mode: mode, iouThreshold: 0.9, threshold: 0.1)
            XCTAssertEqual(all.count, 4, "\(mode)")
            let two = NMS.detections(input, mode: mode, iouThreshold: 0.9, threshold: 0.1, maxDetections: 2)
            // 0.9 and the first of the two 0.6 (in the mode's own order).
            let expected = all.filter { $0.confidence == 0.9 || ($0.confidence == 0.6 && $0 == all.first { $0.confidence == 0.6 }) }
            XCTAssertEqual(two, expected, "\(mode)")
            XCTAssertEqual(NMS.detections(input, mode: mode, iouThreshold: 0.9, threshold: 0.1, maxDetections: 0), [], "\(mode)")
            XCTAssertEqual(NMS.detections(input, mode: mode, iouThreshold: 0.9, threshold: 0.1, maxDetections: 10), all, "\(mode)")
        }
        XCTAssertEqual(NMS.limit([Detection(classId: 0, confidence: 1, box: a)], maxDetections: -1), [])
    }
}
