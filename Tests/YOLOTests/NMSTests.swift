import TestSupport
import XCTest
@testable import YOLO

final class NMSTests: XCTestCase {
    // Boxes with exact binary coordinates. a = [0.125, 0.5] x [0.125, 0.5] and
    // b = [0.1875, 0.5625] x [0.125, 0.5] intersect in 0.3125 x 0.375 = 0.1171875; union
    // 2 x 0.140625 - 0.1171875 = 0.1640625; IoU ~ 0.714. c is far from both.
    let a = BoundingBox(left: 0.125, top: 0.125, right: 0.5, bottom: 0.5)
    let b = BoundingBox(left: 0.1875, top: 0.125, right: 0.5625, bottom: 0.5)
    let c = BoundingBox(left: 0.75, top: 0.75, right: 0.875, bottom: 0.875)

    func make(_ box: BoundingBox, _ probabilities: [Float], objectness: Float = 1) -> Candidate {
        Candidate(box: box, objectness: objectness, probabilities: probabilities)
    }

    func testTheFixtureBoxesOverlapAsClaimed() {
        XCTAssertGreaterThan(a.iou(b), 0.7)
        XCTAssertEqual(a.iou(c), 0)
        XCTAssertEqual(b.iou(c), 0)
    }

    func testPerClassSuppressesLowerScoreOfTheSameClass() {
        let result = NMS.perClass([make(c, [0.7]), make(b, [0.8]), make(a, [0.9])], iouThreshold: 0.5)
        // Sorted by score: a, b, c; b overlaps a, so its score goes to 0; c stays.
        XCTAssertEqual(result, [make(a, [0.9]), make(b, [0]), make(c, [0.7])])
        XCTAssertEqual(detections(from: result, threshold: 0.5).map(\.box), [a, c])
    }

    func testPerClassThresholdIsStrict() {
        // IoU > threshold suppresses, IoU == threshold does not.
        let iou = a.iou(b)
        XCTAssertEqual(NMS.perClass([make(a, [0.9]), make(b, [0.8])], iouThreshold: iou)[1].probabilities, [0.8])
        XCTAssertEqual(NMS.perClass([make(a, [0.9]), make(b, [0.8])], iouThreshold: iou.nextDown)[1].probabilities, [0])
    }

    func testPerClassDoesNotSuppressAcrossClasses() {
        let result = NMS.perClass([make(a, [0.9, 0]), make(b, [0, 0.8])], iouThreshold: 0.5)
        // Class 1's pass sorts b first (0.8 > 0), so darknet's final order is b, a.
        XCTAssertEqual(result, [make(b, [0, 0.8]), make(a, [0.9, 0])])
    }

    func testPerClassDropsZeroObjectnessWithDarknetsSwapOrder() {
        // do_nms_sort moves dets[0] (objectness 0) to the end by swapping it with the last one:
        // [z, a, b] -> [b, a | z]; with all scores zero no sort moves them afterwards.
        let z = make(c, [0, 0], objectness: 0)
        let result = NMS.perClass([z, make(a, [0, 0]), make(b, [0, 0])], iouThreshold: 0.5)
        XCTAssertEqual(result, [make(b, [0, 0]), make(a, [0, 0])])
        XCTAssertEqual(NMS.perClass([], iouThreshold: 0.5), [])
        XCTAssertEqual(NMS.perClass([z], iouThreshold: 0.5), [])
    }

    func testPerClassEqualScoresKeepTheEarlierCandidate() {
        // Same box, same score: the stable sort keeps input order, so the first one wins.
        let first = make(a, [0.5]), second = make(BoundingBox(x: a.x, y: a.y, width: a.width, height: a.height), [0.5], objectness: 0.9)
        XCTAssertEqual(NMS.perClass([first, second], iouThreshold: 0.5).map(\.probabilities), [[0.5], [0]])
        XCTAssertEqual(NMS.perClass([first, second], iouThreshold: 0.5).map(\.objectness), [1, 0.9])
        XCTAssertEqual(NMS.perClass([second, first], iouThreshold: 0.5).map(\.objectness), [0.9, 1])
        XCTAssertEqual(NMS.perClass([second, first], iouThreshold: 0.5).map(\.probabilities), [[0.5], [0]])
    }

    func testPerClassTiesFollowThePreviousClassOrderAsInDarknet() {
        // Class 0 sorts q (0.9) before p (0.5) and zeroes p's class 0. Class 1 scores tie at 0.7:
        // darknet's stable qsort keeps the order class 0 left (q, p), so q wins class 1 too,
        // although p came first in the input.
        let p = make(a, [0.5, 0.7]), q = make(b, [0.9, 0.7])
        XCTAssertEqual(NMS.perClass([p, q], iouThreshold: 0.5), [make(b, [0.9, 0.7]), make(a, [0, 0])])
    }

    func testPerClassHandlesRaggedAndNaNScoresWithoutTrapping() {
        let result = NMS.perClass([make(a, [.nan, 0.4]), make(b, [0.9]), make(c, [])], iouThreshold: 0.5)
        XCTAssertEqual(result.count, 3)
        XCTAssertEqual(result.map(\.probabilities.count).sorted(), [0, 1, 2])
    }

    func testByObjectnessSuppressesWholeCandidates() {
        let result = NMS.byObjectness([make(a, [0.2, 0.8], objectness: 0.8), make(b, [0.9, 0], objectness: 0.9),
                                       make(c, [0.5, 0.5], objectness: 0.7)], iouThreshold: 0.5)
        XCTAssertEqual(result, [make(b, [0.9, 0], objectness: 0.9), make(a, [0, 0], objectness: 0),
                                make(c, [0.5, 0.5], objectness: 0.7)])
    }

    func testClassAgnosticSuppressesAcrossClasses() {
        let result = NMS.classAgnostic([make(a, [0.8, 0.1]), make(c, [0, 0.3]), make(b, [0, 0.9]),
                                        make(c, [1, 1], objectness: 0)], iouThreshold: 0.5)
        // b (best 0.9) beats a (best 0.8) although their best classes differ; the zero-objectness
        // candidate is dropped; c is kept with its probabilities unchanged.
        XCTAssertEqual(result, [make(b, [0, 0.9]), make(c, [0, 0.3])])
    }

    func testClassAgnosticEqualScoresKeepInputOrder() {
        let first = make(a, [0.6, 0]), second = make(b, [0, 0.6])
        XCTAssertEqual(NMS.classAgnostic([first, second], iouThreshold: 0.5), [first])
        XCTAssertEqual(NMS.classAgnostic([second, first], iouThreshold: 0.5), [second])
    }

    /// 10 000 candidates from a 58 x 58 x 3 head with 80 classes: decode and both NMS run and keep
    /// their invariants (no timing asserted; this is the size where O(n^2) allocation would show).
    func testTenThousandCandidatesDecodeAndSuppress() throws {
        let grid = 58, classes = 80
        let head = YOLOHead(anchors: [10, 13, 16, 30, 33, 23], mask: [0, 1, 2], classes: classes)
        var generator = SplitMix64(seed: 3)
        let count = try head.outputCount(gridWidth: grid, gridHeight: grid)
        var output = (0..<count).map { _ in generator.nextUnit() }
        let plane = grid * grid
        for n in 0..<3 {
            // Every objectness above the threshold; class scores u^8, so each class is above it in
            // a few percent of the candidates (as in a real image, most classes are absent).
            for i in 0..<plane { output[(n * 85 + 4) * plane + i] = 0.5 + 0.5 * output[(n * 85 + 4) * plane + i] }
            for i in (n * 85 + 5) * plane..<(n * 85 + 85) * plane {
                let u = output[i] * output[i]
                output[i] = u * u * u * u
            }
        }
        let candidates = try YOLODecoder.decode(output, gridWidth: grid, gridHeight: grid, head: head,
                                                networkWidth: 416, networkHeight: 416, threshold: 0.45)
        XCTAssertEqual(candidates.count, 3 * plane)
        let threshold: Float = 0.45
        let perClass = NMS.perClass(candidates, iouThreshold: threshold)
        XCTAssertEqual(perClass.count, candidates.count)
        let kept = detections(from: perClass, threshold: 0)
        XCTAssertLessThan(kept.count, detections(from: candidates, threshold: 0).count)
        var byClass = [[BoundingBox]](repeating: [], count: classes)
        for detection in kept { byClass[detection.classId].append(detection.box) }
        for boxes in byClass.prefix(3) {  // spot-check: survivors of a class do not overlap > threshold
            for i in boxes.indices { for j in boxes.indices where j > i { XCTAssertLessThanOrEqual(boxes[i].iou(boxes[j]), threshold) } }
        }
        let agnostic = NMS.classAgnostic(candidates, iouThreshold: threshold)
        XCTAssertGreaterThan(agnostic.count, 0)
        for i in agnostic.indices.prefix(200) {
            for j in agnostic.indices where j > i { XCTAssertLessThanOrEqual(agnostic[i].box.iou(agnostic[j].box), threshold) }
        }
    }
}
