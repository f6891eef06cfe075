import XCTest

final class ImagingPlaceholderTests: XCTestCase {
    func testBuilds() { XCTAssertTrue(true) }
}
