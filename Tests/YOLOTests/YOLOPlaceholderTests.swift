import XCTest

final class YOLOPlaceholderTests: XCTestCase {
    func testBuilds() { XCTAssertTrue(true) }
}
