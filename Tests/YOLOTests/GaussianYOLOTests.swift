import XCTest
import YOLO

/// `GaussianYOLODecoder` against AlexeyAB's get_gaussian_yolo_detections, worked by hand on
/// one-cell tensors, and the greedy DIoU NMS of `nms_kind=greedynms`.
final class GaussianYOLOTests: XCTestCase {
    /// One anchor (anchors 8×4, mask 0), 2 classes, a 2×1 grid, network 16×8; cell (0, 1) set.
    private func tensor(objectness: Float) -> [Float] {
        // planes: μx σx μy σy μw σw μh σh obj c0 c1, each 2 values (cells 0 and 1).
        let cell1: [Float] = [0.25, 0.1, 0.5, 0.2, 0, 0.3, Float(log(2.0)), 0.4, objectness, 0.5, 0.9]
        return cell1.flatMap { [0, $0] }
    }

    func testDecodeIsAlexeyABsFormula() throws {
        let head = GaussianYOLOHead(anchors: [8, 4], mask: [0], classes: 2)
        let output = tensor(objectness: 0.8)
        let candidates = try output.withUnsafeBufferPointer {
            try GaussianYOLODecoder.decode($0, gridWidth: 2, gridHeight: 1, head: head, networkWidth: 16, networkHeight: 8, threshold: 0.35)
        }
        XCTAssertEqual(candidates.count, 1, "cell 0's objectness 0 is not above 0.35")
        let c = candidates[0]
        XCTAssertEqual(c.box.x, (1 + 0.25) / 2)
        XCTAssertEqual(c.box.y, 0.5)
        XCTAssertEqual(c.box.width, 0.5)            // exp(0) · 8 / 16
        XCTAssertEqual(c.box.height, 1, accuracy: 1e-6)  // exp(ln 2) · 4 / 8
        XCTAssertEqual(c.uncertainty, BoxUncertainty(x: 0.1, y: 0.2, width: 0.3, height: 0.4))
        let weight = 1.0 - Double(Float(Double(Float(0.1) + 0.2 + 0.3 + 0.4) / 4.0))
        XCTAssertEqual(c.probabilities[0], 0, "0.8 · 0.5 · 0.75 = 0.3 is not above 0.35")
        XCTAssertEqual(c.probabilities[1], Float(Double(Float(0.8) * 0.9) * weight))
    }

    func testYoloPointMovesTheCentreByHalfTheSize() throws {
        for (point, dx) in [(GaussianYOLOHead.Point.leftTop, Float(0.25)), (.rightBottom, -0.25), (.center, 0)] {
            let head = GaussianYOLOHead(anchors: [8, 4], mask: [0], classes: 2, point: point)
            let candidates = try tensor(objectness: 0.8).withUnsafeBufferPointer {
                try GaussianYOLODecoder.decode($0, gridWidth: 2, gridHeight: 1, head: head, networkWidth: 16, networkHeight: 8, threshold: 0.3)
            }
            XCTAssertEqual(candidates[0].box.x, 0.625 + dx, point.rawValue)
        }
    }

    func testWrongSizeIsATypedError() {
        let head = GaussianYOLOHead(anchors: [8, 4], mask: [0], classes: 2)
        XCTAssertThrowsError(try [Float](repeating: 0, count: 21).withUnsafeBufferPointer {
            try GaussianYOLODecoder.decode($0, gridWidth: 2, gridHeight: 1, head: head, networkWidth: 16, networkHeight: 8, threshold: 0.3)
        }) { error in
            guard case YOLOError.outputSizeMismatch(let expected, let actual, _, _, _, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual([expected, actual], [22, 21])
        }
    }

    /// greedynms suppresses by DIoU, not IoU: two boxes of IoU 0.54 whose centres are apart
    /// survive it at 0.45 (DIoU 0.54 − (d/c)^0.6 ≈ 0.41) but not plain per-class NMS.
    func testGreedyNMSIsDIoUNotIoU() {
        let a = BoundingBox(x: 0.3, y: 0.5, width: 0.4, height: 0.4)
        let b = BoundingBox(x: 0.42, y: 0.5, width: 0.4, height: 0.4)
        XCTAssertGreaterThan(a.iou(b), 0.45)
        XCTAssertLessThan(a.distanceIoU(b, exponent: 0.6), 0.45)
        let candidates = [Candidate(box: a, objectness: 1, probabilities: [0.9]), Candidate(box: b, objectness: 1, probabilities: [0.8])]
        XCTAssertEqual(NMS.perClass(candidates, iouThreshold: 0.45).map(\.probabilities), [[0.9], [0]])
        XCTAssertEqual(NMS.greedyDIoU(candidates, iouThreshold: 0.45).map(\.probabilities), [[0.9], [0.8]])
        // The same exponent as diounms with beta 0.6, up to the Float 0.6.
        XCTAssertEqual(a.distanceIoU(b, exponent: 0.6), a.distanceIoU(b, beta: 0.6), accuracy: 1e-6)
    }
}
