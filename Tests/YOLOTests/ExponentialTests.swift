import Foundation
import TestSupport
import XCTest
@testable import YOLO

/// The module's own double `exp` against the C library's, which darknet calls.
final class ExponentialTests: XCTestCase {
    func testMatchesLibmWithinOneULPAndExactlyAfterRoundingToFloat() {
        var generator = SplitMix64(seed: 7)
        var floatMismatches = 0
        for step in 0..<200_000 {
            // Uniform over [-20, 20] (network outputs) plus a sweep of the whole finite range.
            let x = step % 2 == 0
                ? Double(generator.nextUnit()) * 40 - 20
                : Double(generator.nextUnit()) * 1_450 - 740
            let mine = doubleExp(x), reference = Foundation.exp(x)
            // Both are >= 0 (or +inf), so bit patterns order like values, subnormals included.
            XCTAssertLessThanOrEqual(Tolerance.ulps(mine, reference), 1, "exp(\(x))")
            let input = Float(x)
            if Float(doubleExp(Double(input))) != Float(Foundation.exp(Double(input))) { floatMismatches += 1 }
        }
        // A Float mismatch needs the double to fall within ~2^-29 of a halfway point.
        XCTAssertLessThanOrEqual(floatMismatches, 2)
    }

    func testSpecialValues() {
        XCTAssertEqual(doubleExp(0), 1)
        XCTAssertEqual(doubleExp(800), .infinity)
        XCTAssertEqual(doubleExp(-800), 0)
        XCTAssertEqual(doubleExp(.infinity), .infinity)
        XCTAssertEqual(doubleExp(-.infinity), 0)
        XCTAssertTrue(doubleExp(.nan).isNaN)
        XCTAssertEqual(doubleExp(709.78), Foundation.exp(709.78))
        XCTAssertEqual(doubleExp(-745.1), Foundation.exp(-745.1))  // least subnormal
        XCTAssertEqual(doubleExp(-708.5), Foundation.exp(-708.5))  // subnormal range
    }

    func testLogisticIsDarknetsDoubleFormula() {
        // activations.h: 1./(1. + exp(-x)) in double, stored to float.
        for x: Float in [-30, -5.5, -1, -0.25, 0, 0.25, 1, 3.75, 16, 89] {
            XCTAssertEqual(YOLODecoder.logistic(x), Float(1.0 / (1.0 + Foundation.exp(Double(-x)))), "x = \(x)")
        }
        XCTAssertEqual(YOLODecoder.logistic(0), 0.5)
    }
}
