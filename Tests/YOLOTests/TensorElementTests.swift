import XCTest
import YOLO

final class TensorElementTests: XCTestCase {
    func testFloatValues() {
        XCTAssertEqual(Float(0.1).floatValue, 0.1)
        XCTAssertEqual(Double(0.1).floatValue, Float(0.1), "rounded to the nearest Float")
        #if !(os(macOS) && arch(x86_64))
        // 0.1 in Float16 is 0.0999755859375 (1638/16384).
        XCTAssertEqual(Float16(0.1).floatValue, 0.0999755859375)
        #endif
    }
}
