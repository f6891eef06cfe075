import XCTest
import YOLO

final class CorrectBoxesTests: XCTestCase {
    func candidate(_ box: BoundingBox) -> Candidate {
        Candidate(box: box, objectness: 1, probabilities: [1])
    }

    func corrected(_ box: BoundingBox, image: (Int, Int), network: (Int, Int),
                   mapping: InputMapping = .letterbox) -> BoundingBox {
        var candidates = [candidate(box)]
        correctBoxes(&candidates, imageWidth: image.0, imageHeight: image.1,
                     networkWidth: network.0, networkHeight: network.1, mapping: mapping)
        return candidates[0].box
    }

    func testWideImageIsPaddedTopAndBottom() throws {
        // 640x360 into 416x416: 416/640 < 416/360, so new_w = 416, new_h = 360*416/640 = 234;
        // padding (416 - 234)/2 = 91 rows above, i.e. 91/416 = 0.21875; scale 234/416 = 0.5625.
        let geometry = try XCTUnwrap(LetterboxGeometry(imageWidth: 640, imageHeight: 360, networkWidth: 416, networkHeight: 416))
        XCTAssertEqual(geometry.scaledWidth, 416)
        XCTAssertEqual(geometry.scaledHeight, 234)
        let centre = corrected(BoundingBox(x: 0.5, y: 0.5, width: 0.5, height: 0.5), image: (640, 360), network: (416, 416))
        XCTAssertEqual(centre, BoundingBox(x: 0.5, y: 0.5, width: 0.5, height: 0.5 * (Float(416) / Float(234))))
        // The letterbox band's edges map to the image's edges: (0.21875 - 0.21875)/0.5625 = 0,
        // (0.78125 - 0.21875)/0.5625 = 1, all exact in binary.
        XCTAssertEqual(corrected(BoundingBox(x: 0.25, y: 0.21875, width: 0.1, height: 0.1), image: (640, 360), network: (416, 416)).y, 0)
        XCTAssertEqual(corrected(BoundingBox(x: 0.25, y: 0.78125, width: 0.1, height: 0.1), image: (640, 360), network: (416, 416)).y, 1)
        XCTAssertEqual(corrected(BoundingBox(x: 0.25, y: 0.5, width: 0.1, height: 0.1), image: (640, 360), network: (416, 416)).x, 0.25)
    }

    func testTallImageIsPaddedLeftAndRight() throws {
        // 360x640 into 416x416: the transpose of the wide case; new_w = 234, new_h = 416.
        let geometry = try XCTUnwrap(LetterboxGeometry(imageWidth: 360, imageHeight: 640, networkWidth: 416, networkHeight: 416))
        XCTAssertEqual(geometry.scaledWidth, 234)
        XCTAssertEqual(geometry.scaledHeight, 416)
        let box = corrected(BoundingBox(x: 0.78125, y: 0.5, width: 0.5, height: 0.5), image: (360, 640), network: (416, 416))
        XCTAssertEqual(box, BoundingBox(x: 1, y: 0.5, width: 0.5 * (Float(416) / Float(234)), height: 0.5))
    }

    func testScaledSizeTruncatesLikeCIntegerDivision() throws {
        // 1001x333 into 416x416: new_h = 333*416/1001 = 138528/1001 = 138.39 -> 138.
        let wide = try XCTUnwrap(LetterboxGeometry(imageWidth: 1001, imageHeight: 333, networkWidth: 416, networkHeight: 416))
        XCTAssertEqual(wide.scaledHeight, 138)
        // 333x1001 into 608x416: 608/333 > 416/1001, so new_h = 416, new_w = 333*416/1001 = 138.
        let tall = try XCTUnwrap(LetterboxGeometry(imageWidth: 333, imageHeight: 1001, networkWidth: 608, networkHeight: 416))
        XCTAssertEqual(tall.scaledWidth, 138)
        XCTAssertEqual(tall.scaledHeight, 416)
    }

    func testHugeSizesDoNotOverflow() throws {
        // w*416 overflows 64 bits; w/h is just below 1, so (w*416)/h truncates to 415.
        let geometry = try XCTUnwrap(LetterboxGeometry(
            imageWidth: Int.max / 2, imageHeight: Int.max / 2 + 1, networkWidth: 416, networkHeight: 416))
        XCTAssertEqual(geometry.scaledHeight, 416)
        XCTAssertEqual(geometry.scaledWidth, 415)
    }

    func testSameAspectLeavesBoxesUnchanged() {
        let box = BoundingBox(x: 0.3, y: 0.7, width: 0.2, height: 0.1)
        XCTAssertEqual(corrected(box, image: (500, 500), network: (416, 416)), box)
    }

    func testStretchAndBadSizesLeaveBoxesUnchanged() {
        let box = BoundingBox(x: 0.3, y: 0.7, width: 0.2, height: 0.1)
        XCTAssertEqual(corrected(box, image: (640, 360), network: (416, 416), mapping: .stretch), box)
        XCTAssertEqual(corrected(box, image: (0, 360), network: (416, 416)), box)
        XCTAssertEqual(corrected(box, image: (640, 360), network: (416, -1)), box)
        XCTAssertNil(LetterboxGeometry(imageWidth: 640, imageHeight: 0, networkWidth: 416, networkHeight: 416))
    }
}
