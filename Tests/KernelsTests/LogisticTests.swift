@testable import Kernels
import TestSupport
import XCTest

/// `Logistic`'s vector kernel against its reference, darknet's `1./(1. + exp(-x))` in double.
final class LogisticTests: XCTestCase {
    /// Every 61st Float (70 million, both signs, every exponent, NaNs and infinities among them;
    /// a prime step so the low mantissa bits vary too): the same bits as the reference. A debug
    /// build (plain `swift test`, the fast tier) takes every 6101st: every 61st takes a minute there.
    func testEverySixtyFirstFloatHasTheReferencesBits() {
        #if DEBUG
        let step = 6101
        #else
        let step = 61
        #endif
        let chunk = 1 << 16
        var input = [Float](repeating: 0, count: chunk), output = [Float](repeating: 0, count: chunk)
        var pattern: UInt64 = 0, mismatches = 0, checked = 0
        var first: Float?
        while pattern <= UInt64(UInt32.max) {
            var n = 0
            while n < chunk && pattern <= UInt64(UInt32.max) {
                input[n] = Float(bitPattern: UInt32(pattern))
                n += 1
                pattern += UInt64(step)
            }
            input.withUnsafeBufferPointer { i in
                output.withUnsafeMutableBufferPointer { Logistic.serial(i.baseAddress!, $0.baseAddress!, count: n) }
            }
            for j in 0..<n {
                let expected = Logistic.reference(input[j])
                if expected.bitPattern != output[j].bitPattern && !(expected.isNaN && output[j].isNaN) {
                    mismatches += 1
                    if first == nil { first = input[j] }
                }
            }
            checked += n
        }
        XCTAssertEqual(checked, Int((UInt64(UInt32.max) + 1 + UInt64(step) - 1) / UInt64(step)))
        XCTAssertEqual(mismatches, 0, "first at \(String(describing: first))")
    }

    /// The reference is `Activation.value(.logistic)`, darknet's formula.
    func testReferenceIsTheActivationsFormula() {
        for x: Float in [-100, -80, -17.5, -1, -0, 0, 0.3, 5, 80, 100, .infinity, -.infinity] {
            XCTAssertEqual(Logistic.reference(x).bitPattern, Activation.logistic.value(x).bitPattern, "\(x)")
        }
    }

    /// Ordinary logits take the vector path: nearly every block passes the range check and the
    /// rounding test (a kernel that always fell back would be correct but no faster).
    func testOrdinaryBlocksTakeTheVectorPath() {
        var generator = SplitMix64(state: 7)
        let blocks = 4096
        let input = (0..<blocks * Logistic.block).map { _ in generator.uniform(-20, 20) }
        var output = [Float](repeating: 0, count: Logistic.block)
        var accepted = 0
        input.withUnsafeBufferPointer { i in
            Logistic.powers.withUnsafeBufferPointer { table in
                output.withUnsafeMutableBufferPointer { o in
                    for b in 0..<blocks where Logistic.fastBlock(i.baseAddress! + b * Logistic.block, o.baseAddress!,
                                                                  table.baseAddress!) {
                        accepted += 1
                    }
                }
            }
        }
        XCTAssertGreaterThan(accepted, blocks * 99 / 100)
    }

    /// A block with one input beyond ±80, an infinity or a NaN is computed by the reference;
    /// so are the tails shorter than a block. In place and out of place agree.
    func testOutOfRangeInputsTailsAndInPlace() {
        checkOddInputsTailsAndInPlace([80.5, -81, 1e30, .infinity, -.infinity, .nan, -104, 90],
                                      serial: Logistic.serial, reference: Logistic.reference)
    }

    /// Split across 1, 2 and 3 workers, every element is the reference's.
    func testParallelSplitsGiveTheReferencesBits() {
        checkParallelSplits(apply: Logistic.apply, reference: Logistic.reference)
    }
}

/// 200,003 logits split across 1, 2 and 3 workers by `apply`: every element is `reference`'s.
/// Shared by `LogisticTests` and `AlexeyABLogisticTests`.
func checkParallelSplits(apply: (UnsafePointer<Float>, UnsafeMutablePointer<Float>, Int, Int) -> Void,
                         reference: (Float) -> Float, file: StaticString = #filePath, line: UInt = #line) {
    let input = (0..<200_003).map { Float($0 % 6007 - 3003) / 150 }
    let expected = input.map(reference)
    for threads in [1, 2, 3] {
        var output = [Float](repeating: 0, count: input.count)
        input.withUnsafeBufferPointer { i in
            output.withUnsafeMutableBufferPointer { apply(i.baseAddress!, $0.baseAddress!, input.count, threads) }
        }
        XCTAssertTrue(zip(output, expected).allSatisfy { $0.bitPattern == $1.bitPattern }, "\(threads) workers",
                      file: file, line: line)
    }
}

/// For each odd input (out of the vector path's range) in the middle of runs of 1 to 200
/// ordinary ones: `serial` out of place gives `reference`'s bits (NaN for NaN), and in place
/// the same. The shared check of `LogisticTests` and `AlexeyABLogisticTests`.
func checkOddInputsTailsAndInPlace(_ odds: [Float],
                                   serial: (UnsafePointer<Float>, UnsafeMutablePointer<Float>, Int) -> Void,
                                   reference: (Float) -> Float, file: StaticString = #filePath, line: UInt = #line) {
    for odd in odds {
        for count in [1, 3, 63, 64, 65, 130, 200] {
            var input = (0..<count).map { Float($0 % 37) / 3 - 6 }
            input[count / 2] = odd
            var output = [Float](repeating: -1, count: count)
            input.withUnsafeBufferPointer { i in
                output.withUnsafeMutableBufferPointer { serial(i.baseAddress!, $0.baseAddress!, count) }
            }
            var inPlace = input
            inPlace.withUnsafeMutableBufferPointer { serial($0.baseAddress!, $0.baseAddress!, count) }
            for j in 0..<count {
                let expected = reference(input[j])
                XCTAssertTrue(output[j].bitPattern == expected.bitPattern || (expected.isNaN && output[j].isNaN),
                              "\(odd), count \(count), element \(j)", file: file, line: line)
                XCTAssertTrue(inPlace[j].bitPattern == output[j].bitPattern || (inPlace[j].isNaN && output[j].isNaN),
                              file: file, line: line)
            }
        }
    }
}
