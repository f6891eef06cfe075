import XCTest
@testable import YOLO

final class BoundingBoxTests: XCTestCase {
    func testEdgesAreCentreMinusAndPlusHalfSize() {
        let box = BoundingBox(x: 0.5, y: 0.25, width: 0.5, height: 0.25)
        XCTAssertEqual(box.left, 0.25)
        XCTAssertEqual(box.right, 0.75)
        XCTAssertEqual(box.top, 0.125)
        XCTAssertEqual(box.bottom, 0.375)
    }

    func testInitFromEdgesRoundTrips() {
        // Values exact in binary, so centre and size come out exact.
        let box = BoundingBox(left: 0.25, top: 0.125, right: 0.75, bottom: 0.375)
        XCTAssertEqual(box, BoundingBox(x: 0.5, y: 0.25, width: 0.5, height: 0.25))
    }

    func testIdenticalBoxesHaveIoUOne() {
        // Dyadic values: every step exact, so exactly 1.
        let box = BoundingBox(x: 0.25, y: 0.5, width: 0.5, height: 0.25)
        XCTAssertEqual(box.iou(box), 1)
        // Otherwise darknet's `right - left` differs from `width` by rounding: close to 1.
        let other = BoundingBox(x: 0.3, y: 0.6, width: 0.2, height: 0.4)
        XCTAssertEqual(other.iou(other), 1, accuracy: 1e-6)
    }

    func testDisjointBoxesHaveIoUZero() {
        let a = BoundingBox(x: 0.1, y: 0.1, width: 0.1, height: 0.1)
        let b = BoundingBox(x: 0.9, y: 0.9, width: 0.1, height: 0.1)
        XCTAssertEqual(a.iou(b), 0)
        XCTAssertEqual(b.iou(a), 0)
    }

    func testTouchingBoxesHaveIoUZero() {
        let a = BoundingBox(left: 0, top: 0, right: 0.5, bottom: 1)
        let b = BoundingBox(left: 0.5, top: 0, right: 1, bottom: 1)
        XCTAssertEqual(a.iou(b), 0)
    }

    func testContainedBoxIoUIsAreaRatio() {
        // Inner 0.25 x 0.25 inside outer 0.5 x 0.5: intersection = inner area, union = outer area.
        let outer = BoundingBox(x: 0.5, y: 0.5, width: 0.5, height: 0.5)
        let inner = BoundingBox(x: 0.5, y: 0.5, width: 0.25, height: 0.25)
        XCTAssertEqual(outer.iou(inner), 0.25)
        XCTAssertEqual(inner.iou(outer), 0.25)
    }

    func testHalfOverlapIoUIsOneThird() {
        // Two unit-height boxes of width 0.5 overlapping by 0.25: 0.25 / (0.5 + 0.5 - 0.25).
        let a = BoundingBox(left: 0, top: 0, right: 0.5, bottom: 1)
        let b = BoundingBox(left: 0.25, top: 0, right: 0.75, bottom: 1)
        XCTAssertEqual(a.iou(b), Float(0.25) / Float(0.75))
    }

    func testZeroAreaBoxesGiveZeroNotNaN() {
        // darknet's box_iou would return 0/0 = NaN here.
        let point = BoundingBox(x: 0.5, y: 0.5, width: 0, height: 0)
        XCTAssertEqual(point.iou(point), 0)
        let line = BoundingBox(x: 0.5, y: 0.5, width: 0.3, height: 0)
        XCTAssertEqual(line.iou(line), 0)
        XCTAssertTrue(darknetIoU(point, point).isNaN, "internal darknet IoU keeps darknet's NaN")
        let box = BoundingBox(x: 0.5, y: 0.5, width: 0.2, height: 0.2)
        XCTAssertEqual(point.iou(box), 0)
    }

    func testNaNInputGivesZero() {
        let bad = BoundingBox(x: .nan, y: 0.5, width: 0.2, height: 0.2)
        XCTAssertEqual(bad.iou(BoundingBox(x: 0.5, y: 0.5, width: 0.2, height: 0.2)), 0)
    }

    func testCodableRoundTripWithoutFoundationInTheModule() throws {
        let box = BoundingBox(x: 0.1, y: 0.2, width: 0.3, height: 0.4)
        let data = try JSONEncoder().encode(box)
        XCTAssertEqual(try JSONDecoder().decode(BoundingBox.self, from: data), box)
    }
}
