import Foundation
import XCTest
@testable import YOLO

final class LogarithmTests: XCTestCase {
    /// Against Foundation's libm on values across the range (relative error < 4e-16).
    func testLogAndPowMatchLibm() {
        for x in [1e-300, 1e-10, 0.011764706, 0.5, 0.70710678, 1, 1.4142136, 2, 10, 12345.678, 1e300] {
            XCTAssertEqual(doubleLog(x), Foundation.log(x), accuracy: 4e-16 * max(1, abs(Foundation.log(x))), "\(x)")
            XCTAssertEqual(doublePow(x, 0.6), Foundation.pow(x, 0.6), accuracy: 1e-15 * Foundation.pow(x, 0.6) * max(1, abs(Foundation.log(x))), "\(x)")
        }
        XCTAssertEqual(doubleLog(Double.leastNonzeroMagnitude), Foundation.log(Double.leastNonzeroMagnitude), accuracy: 1e-12)
        XCTAssertTrue(doubleLog(-1).isNaN)
        XCTAssertEqual(doubleLog(0), -.infinity)
        XCTAssertEqual(doublePow(0, 0.6), 0)
        XCTAssertEqual(doublePow(5, 0), 1)
        XCTAssertTrue(doublePow(-1, 0.5).isNaN)
    }
}
