import XCTest
@testable import Imaging

final class DrawingTests: XCTestCase {
    /// Boxes (some partly outside) drawn by darknet's draw_box_width on a 0.5 canvas.
    func testDrawBoxMatchesDarknet() throws {
        let entry = try XCTUnwrap(try Fixtures.manifest()["draw_boxes"] as? [String: Any])
        let expected = try Fixtures.image(entry: entry)
        let fill = try XCTUnwrap(entry["fill"] as? Double)
        var canvas = Image(width: expected.width, height: expected.height, channels: 3, fill: Float(fill))
        for box in try XCTUnwrap(entry["boxes"] as? [[Double]]) {
            canvas.drawBox(left: Int(box[0]), top: Int(box[1]), right: Int(box[2]), bottom: Int(box[3]),
                           lineWidth: Int(box[4]), red: Float(box[5]), green: Float(box[6]), blue: Float(box[7]))
        }
        assertImagesEqual(canvas, expected, "draw_box_width")
    }

    /// A 1-pixel box from (1,1) to (3,2) sets exactly its outline on all three channels.
    func testOutlinePixels() {
        var image = Image(width: 5, height: 4, channels: 3, fill: 0)
        image.drawBox(left: 1, top: 1, right: 3, bottom: 2, lineWidth: 1, red: 1, green: 0.5, blue: 0.25)
        let expectedMask: [Float] = [0, 0, 0, 0, 0,
                                     0, 1, 1, 1, 0,
                                     0, 1, 1, 1, 0,
                                     0, 0, 0, 0, 0]
        XCTAssertEqual(Array(image.data[0..<20]), expectedMask)
        XCTAssertEqual(Array(image.data[20..<40]), expectedMask.map { $0 * 0.5 })
        XCTAssertEqual(Array(image.data[40..<60]), expectedMask.map { $0 * 0.25 })
    }

    /// Coordinates beyond the image are clamped (to 0 and size-1), as draw_box does: a box
    /// covering everything outlines the image border.
    func testClampedAtEdges() {
        var image = Image(width: 4, height: 3, channels: 1, fill: 0)
        image.drawBox(left: -10, top: -10, right: 50, bottom: 50, lineWidth: 1, red: 1, green: 1, blue: 1)
        XCTAssertEqual(image.data, [1, 1, 1, 1,
                                    1, 0, 0, 1,
                                    1, 1, 1, 1])
    }

    func testLabelAboveBoxWhenItFits() {
        var image = Image(width: 120, height: 60, channels: 3, fill: 0.5)
        image.drawLabel("dog", left: 10, top: 40, red: 1, green: 0, blue: 0, scale: 1)
        // Label height = 7 + 2 * Int(7 * 0.25) = 9, so it occupies rows 31...39 above row 40.
        XCTAssertEqual(image[10, 31, 0], 1)       // border pixel in the box colour
        XCTAssertEqual(image[10, 31, 1], 0)
        XCTAssertEqual(image[10, 30, 0], 0.5)     // untouched above
        XCTAssertEqual(image[10, 40, 0], 0.5)     // untouched at the box top row
        let ink = (31..<40).flatMap { y in (10..<40).map { x in image[x, y, 0] } }.filter { $0 == 0 }.count
        XCTAssertGreaterThan(ink, 10, "text drawn in black")
    }

    func testLabelInsideWhenNoRoomAboveAndClippedAtRightEdge() {
        var image = Image(width: 20, height: 30, channels: 3, fill: 0.5)
        image.drawLabel("person", left: 15, top: 2, red: 0, green: 1, blue: 0, scale: 1)
        XCTAssertEqual(image[15, 2, 1], 1)       // starts at row 2 because 2 - 9 < 0
        XCTAssertEqual(image[15, 1, 1], 0.5)
        XCTAssertEqual(image[19, 2, 1], 1)       // clipped at x = 19, no crash
    }

    func testDefaultLabelScaleFollowsImageHeight() {
        // darknet: size = (int)(576 * .03) / 10 = 1 → our scale 2 → 14 + 2*3 = 20 rows high.
        var image = Image(width: 200, height: 576, channels: 3, fill: 0)
        image.drawLabel("a", left: 0, top: 100, red: 1, green: 1, blue: 1)
        XCTAssertEqual(image[0, 80, 0], 1)
        XCTAssertEqual(image[0, 79, 0], 0)
    }
}
