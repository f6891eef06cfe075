import XCTest
import YOLO

final class DetectionTests: XCTestCase {
    func detection(_ box: BoundingBox) -> Detection { Detection(classId: 0, confidence: 1, box: box) }

    func testPixelBoxTruncatesTowardZeroInDouble() {
        // Float(0.3) = 0.300000011920929, so left = (0.5 - 0.150000005960464) * 100 = 34.9999994
        // which C truncates to 34 (not 35); right = 65.0000006 -> 65.
        // y: Float(0.2) = 0.200000002980232, top = (0.5 - 0.100000001490116) * 50 = 19.99999993 -> 19,
        // bottom = 30.00000007 -> 30.
        let box = BoundingBox(x: 0.5, y: 0.5, width: 0.3, height: 0.2)
        XCTAssertEqual(detection(box).pixelBox(imageWidth: 100, imageHeight: 50),
                       PixelBox(left: 34, top: 19, right: 65, bottom: 30))
    }

    func testPixelBoxClipsToTheImage() {
        // left = -0.05 * 100 = -5 -> 0; right = 1.05 * 100 = 105 -> 99; top/bottom likewise on 20 rows.
        let big = BoundingBox(x: 0.5, y: 0.5, width: 1.1, height: 1.5)
        XCTAssertEqual(detection(big).pixelBox(imageWidth: 100, imageHeight: 20), PixelBox(left: 0, top: 0, right: 99, bottom: 19))
        // Between -1 and 0 C truncation already gives 0.
        let edge = BoundingBox(x: 0.001, y: 0.5, width: 0.004, height: 0.5)
        XCTAssertEqual(detection(edge).pixelBox(imageWidth: 100, imageHeight: 20).left, 0)
        // Boxes wholly outside are clamped on every edge.
        let outside = BoundingBox(x: 2, y: -3, width: 0.5, height: 0.5)
        XCTAssertEqual(detection(outside).pixelBox(imageWidth: 100, imageHeight: 20), PixelBox(left: 99, top: 0, right: 99, bottom: 0))
    }

    func testPixelBoxNeverTraps() {
        let nan = BoundingBox(x: .nan, y: .infinity, width: .greatestFiniteMagnitude, height: -.infinity)
        let pixels = detection(nan).pixelBox(imageWidth: 100, imageHeight: 20)
        XCTAssertTrue((0...99).contains(pixels.left) && (0...99).contains(pixels.right))
        XCTAssertTrue((0...19).contains(pixels.top) && (0...19).contains(pixels.bottom))
        XCTAssertEqual(detection(BoundingBox(x: 0.5, y: 0.5, width: 0.5, height: 0.5)).pixelBox(imageWidth: 0, imageHeight: -4),
                       PixelBox(left: 0, top: 0, right: 0, bottom: 0))
    }

    func testDetectionsAreInCandidateThenClassOrder() {
        let first = BoundingBox(x: 0.2, y: 0.2, width: 0.1, height: 0.1)
        let second = BoundingBox(x: 0.7, y: 0.7, width: 0.1, height: 0.1)
        let candidates = [
            Candidate(box: first, objectness: 0.9, probabilities: [0.6, 0, 0.8, 0.5]),
            Candidate(box: second, objectness: 0.9, probabilities: [0, 0.7, 0, 0]),
        ]
        XCTAssertEqual(detections(from: candidates, threshold: 0.5), [
            Detection(classId: 0, confidence: 0.6, box: first),
            Detection(classId: 2, confidence: 0.8, box: first),  // 0.5 is not > 0.5
            Detection(classId: 1, confidence: 0.7, box: second),
        ])
        XCTAssertEqual(detections(from: candidates, threshold: 0.9), [])
    }
}
