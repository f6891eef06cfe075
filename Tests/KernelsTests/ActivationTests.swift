@testable import Kernels
import TestSupport
import XCTest

/// `Activation`'s fast paths against its scalar formulas (`value`, darknet's `*_activate`).
final class ActivationTests: XCTestCase {
    func testDarknetFormulas() {
        XCTAssertEqual(Activation.leaky.value(-2), Float(0.1 * -2.0))
        XCTAssertEqual(Activation.leaky.value(3), 3)
        XCTAssertEqual(Activation.relu.value(-1), 0)
        XCTAssertEqual(Activation.logistic.value(0), 0.5)
        XCTAssertEqual(Activation.linear.value(-7), -7)
        XCTAssertEqual(Activation.ramp.value(2), 2.2, accuracy: 1e-6)
        XCTAssertEqual(Activation.plse.value(-5), -0.01, accuracy: 1e-7)
        XCTAssertEqual(Activation.hardtan.value(3), 1)
        XCTAssertEqual(Activation.tanh.value(400), 1, "no NaN for large inputs")
        XCTAssertEqual(Activation.stair.value(3.5), 1.5, accuracy: 1e-6, "odd floor: (x − n) + floor(x/2)")
        XCTAssertEqual(Activation.stair.value(4.5), 2, accuracy: 1e-6, "even floor: floor(x/2)")
    }

    func testApplyEqualsScalarFormula() {
        let values: [Float] = [-3, -0.5, 0, 0.25, 2, 9]
        for activation in Activation.allCases {
            var copy = values
            copy.withUnsafeMutableBufferPointer { activation.apply($0.baseAddress!, count: $0.count, threads: 1) }
            XCTAssertEqual(copy, values.map(activation.value), "\(activation)")
        }
    }

    /// Large arrays are split across the workers; every element must still be the scalar formula's.
    func testApplyOnManyElementsEqualsScalarFormulaOnOneToThreeWorkers() {
        let values = (0..<100_003).map { Float($0 % 4001 - 2000) / 97 }
        for activation in Activation.allCases {
            let expected = values.map(activation.value)
            for threads in [1, 2, 3] {
                var copy = values
                copy.withUnsafeMutableBufferPointer { activation.apply($0.baseAddress!, count: $0.count, threads: threads) }
                XCTAssertTrue(zip(copy, expected).allSatisfy { $0.bitPattern == $1.bitPattern }, "\(activation), \(threads) threads")
            }
        }
    }

    /// Leaky's `x / 10` (Float) is darknet's `Float(0.1 · Double(x))` for every Float at or below 0
    /// (all 2³¹ of them, NaNs aside: about 3 s in release); above 0 both return x. A debug build
    /// (plain `swift test`, the fast tier) takes every 1009th of them: all would take many minutes.
    func testLeakyDivisionIsDarknetsDoubleProductForEveryFloat() {
        #if DEBUG
        let step = 1009
        #else
        let step = 1
        #endif
        var mismatches = 0
        var first: Float?
        for bits in stride(from: UInt32(0x8000_0000), through: UInt32.max, by: step) {
            let x = Float(bitPattern: bits)
            guard !x.isNaN else { continue }
            if Activation.leaky(x).bitPattern != Float(0.1 * Double(x)).bitPattern {
                mismatches += 1
                if first == nil { first = x }
            }
        }
        XCTAssertEqual(mismatches, 0, "first at \(String(describing: first))")
        XCTAssertEqual(Activation.leaky(0).bitPattern, Float(0).bitPattern)
        XCTAssertEqual(Activation.leaky(.leastNonzeroMagnitude), .leastNonzeroMagnitude)
        XCTAssertEqual(Activation.leaky(.infinity), .infinity)
    }

    /// `apply` and the convolutions' fused epilogue (bias first, as darknet's `add_bias`: −0 + 0 is
    /// +0) give `value`'s bits, on values of every scale (subnormals, −0, ±∞ included) and a count
    /// that is not a multiple of any vector width.
    func testLeakyFastPathsMatchTheFormula() {
        var generator = SplitMix64(state: 9)
        var values: [Float] = [0, -0.0, .infinity, -.infinity, -.leastNonzeroMagnitude, -.leastNormalMagnitude,
                               -.greatestFiniteMagnitude, .leastNormalMagnitude / 3, -.leastNormalMagnitude / 7, -1, 1]
        for _ in 0..<1001 {
            let mantissa = generator.uniform(-1, 1)
            values.append(mantissa * Float(sign: .plus, exponent: Int(generator.uniform(-140, 120)), significand: 1))
        }
        func mismatches(_ got: [Float], _ expected: [Float]) -> Int {
            zip(got, expected).filter { $0.bitPattern != $1.bitPattern }.count
        }
        var applied = values
        applied.withUnsafeMutableBufferPointer { Activation.leaky.apply($0.baseAddress!, count: $0.count, threads: 1) }
        XCTAssertEqual(mismatches(applied, values.map { Activation.leaky.value($0) }), 0)
        for bias: Float in [0, -0.375, 1e-3] {
            var fused = values
            fused.withUnsafeMutableBufferPointer {
                Epilogue.biasActivation($0.baseAddress!, count: $0.count, bias: bias, activation: .leaky)
            }
            XCTAssertEqual(mismatches(fused, values.map { Activation.leaky.value($0 + bias) }), 0, "bias \(bias)")
        }
    }
}
