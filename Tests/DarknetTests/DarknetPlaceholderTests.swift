import XCTest

final class DarknetPlaceholderTests: XCTestCase {
    func testBuilds() { XCTAssertTrue(true) }
}
