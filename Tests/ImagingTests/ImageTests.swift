import XCTest
@testable import Imaging

final class ImageTests: XCTestCase {
    func testFillAndCHWIndexing() {
        var image = Image(width: 3, height: 2, channels: 2, fill: 0.5)
        XCTAssertEqual(image.data, [Float](repeating: 0.5, count: 12))
        image[2, 1, 1] = 7
        XCTAssertEqual(image.data[1 * 6 + 1 * 3 + 2], 7)   // c*h*w + y*w + x
        XCTAssertEqual(image[2, 1, 1], 7)
    }

    func testEquatable() {
        XCTAssertEqual(Image(width: 1, height: 1, channels: 1, data: [0.25]), Image(width: 1, height: 1, channels: 1, fill: 0.25))
        XCTAssertNotEqual(Image(width: 1, height: 2, channels: 1, fill: 0), Image(width: 2, height: 1, channels: 1, fill: 0))
    }
}
