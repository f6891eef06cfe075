#if canImport(Glibc)
import Glibc
#endif
@testable import Kernels
import TestSupport
import XCTest

/// `AlexeyABLogistic`'s vector kernel against its reference, AlexeyAB's `1.f/(1.f + expf(-x))`
/// with glibc's `expf` as its FMA build computes it; the reference's `expf` against libm's.
final class AlexeyABLogisticTests: XCTestCase {
    /// Every 61st Float (70 million, both signs, every exponent, NaNs and infinities among them):
    /// the same bits as the reference. A debug build takes every 6101st.
    func testEverySixtyFirstFloatHasTheReferencesBits() {
        var mismatches = 0, checked = 0
        var first: Float?
        forEverySixtyFirstFloat { input in
            var output = [Float](repeating: 0, count: input.count)
            input.withUnsafeBufferPointer { i in
                output.withUnsafeMutableBufferPointer { AlexeyABLogistic.serial(i.baseAddress!, $0.baseAddress!, count: i.count) }
            }
            for (x, y) in zip(input, output) {
                let expected = AlexeyABLogistic.reference(x)
                if expected.bitPattern != y.bitPattern && !(expected.isNaN && y.isNaN) {
                    mismatches += 1
                    if first == nil { first = x }
                }
            }
            checked += input.count
        }
        XCTAssertEqual(checked, Int((UInt64(UInt32.max) + UInt64(Self.step)) / UInt64(Self.step)))
        XCTAssertEqual(mismatches, 0, "first at \(String(describing: first))")
    }

    #if canImport(Glibc)
    /// The reference's `expf` is glibc's on CPUs with FMA (every x86-64 since 2013 and every arm64
    /// this runs on): every 61st Float, and the two Floats where glibc's unfused build differs
    /// (without the fused `r` the two fail). The table's powers of 2 are glibc's `exp2`'s.
    func testExpfIsGlibcs() {
        var mismatches = 0
        var first: Float?
        forEverySixtyFirstFloat { input in
            for x in input where AlexeyABLogistic.expf(x).bitPattern != expf(x).bitPattern && !x.isNaN {
                mismatches += 1
                if first == nil { first = x }
            }
        }
        XCTAssertEqual(mismatches, 0, "first at \(String(describing: first))")
        for x: Float in [32.564632, -63.09946, 88.72283, 88.72284, -103.97207, -103.97208, -87.5, 0, -0, 1e-30] {
            XCTAssertEqual(AlexeyABLogistic.expf(x).bitPattern, expf(x).bitPattern, "\(x)")
        }
        for (j, bits) in AlexeyABLogistic.powers.enumerated() {
            XCTAssertEqual(bits, exp2(Double(j) / 32).bitPattern, "2^(\(j)/32)")
        }
    }
    #endif

    /// The special cases of glibc's `expf`, and the logistic's ends.
    func testSpecialCases() {
        XCTAssertEqual(AlexeyABLogistic.expf(.infinity), .infinity)
        XCTAssertEqual(AlexeyABLogistic.expf(-.infinity).bitPattern, Float(0).bitPattern)
        XCTAssertTrue(AlexeyABLogistic.expf(.nan).isNaN)
        XCTAssertEqual(AlexeyABLogistic.expf(89), .infinity)
        XCTAssertEqual(AlexeyABLogistic.expf(-104).bitPattern, Float(0).bitPattern)
        XCTAssertEqual(AlexeyABLogistic.expf(-103).bitPattern, 1, "the least subnormal, rounded once from double")
        XCTAssertEqual(AlexeyABLogistic.reference(200), 1)
        XCTAssertEqual(AlexeyABLogistic.reference(-200).bitPattern, Float(0).bitPattern)
        XCTAssertEqual(AlexeyABLogistic.reference(0), 0.5)
        XCTAssertTrue(AlexeyABLogistic.reference(.nan).isNaN)
    }

    /// It is AlexeyAB's Float formula, not pjreddie's double one: the two differ in the last
    /// bit for some inputs (1.5: 0x3f514c8f against 0x3f514c90, from AlexeyAB's darknet and
    /// pjreddie's formulas in C), and `Activation.value` gives the reference's bits.
    func testItIsTheFloatFormula() {
        XCTAssertEqual(AlexeyABLogistic.reference(1.5).bitPattern, 0x3f51_4c8f)
        XCTAssertEqual(Logistic.reference(1.5).bitPattern, 0x3f51_4c90)
        var differ = 0
        for i in -2000...2000 {
            let x = Float(i) / 100
            XCTAssertEqual(Activation.alexeyABLogistic.value(x).bitPattern, AlexeyABLogistic.reference(x).bitPattern)
            if AlexeyABLogistic.reference(x) != Logistic.reference(x) { differ += 1 }
        }
        XCTAssertGreaterThan(differ, 100, "the float formula rounds differently from the double one somewhere")
    }

    /// At the two Floats where glibc's unfused `expf` differs from its fused one (the vector
    /// path's is unfused), the vector path's logistics are still the reference's.
    func testTheVectorPathAtTheTwoUnfusedDifferences() {
        var input = [Float](repeating: 0.5, count: AlexeyABLogistic.block)
        input[5] = -32.564632
        input[42] = 63.09946
        var output = [Float](repeating: 0, count: input.count)
        let accepted = input.withUnsafeBufferPointer { i in
            AlexeyABLogistic.table.withUnsafeBufferPointer { table in
                output.withUnsafeMutableBufferPointer { AlexeyABLogistic.fastBlock(i.baseAddress!, $0.baseAddress!, table.baseAddress!) }
            }
        }
        XCTAssertTrue(accepted)
        XCTAssertEqual(output.map(\.bitPattern), input.map { AlexeyABLogistic.reference($0).bitPattern })
    }

    /// Ordinary logits take the vector path: nearly every block passes the range check.
    func testOrdinaryBlocksTakeTheVectorPath() {
        var generator = SplitMix64(state: 7)
        let blocks = 4096
        let input = (0..<blocks * AlexeyABLogistic.block).map { _ in generator.uniform(-20, 20) }
        var output = [Float](repeating: 0, count: AlexeyABLogistic.block)
        var accepted = 0
        input.withUnsafeBufferPointer { i in
            AlexeyABLogistic.table.withUnsafeBufferPointer { table in
                output.withUnsafeMutableBufferPointer { o in
                    for b in 0..<blocks where AlexeyABLogistic.fastBlock(i.baseAddress! + b * AlexeyABLogistic.block,
                                                                           o.baseAddress!, table.baseAddress!) {
                        accepted += 1
                    }
                }
            }
        }
        XCTAssertEqual(accepted, blocks)
    }

    /// A block with one input beyond ±87, an infinity or a NaN is computed by the reference; so
    /// are the tails shorter than a block. In place and out of place agree.
    func testOutOfRangeInputsTailsAndInPlace() {
        checkOddInputsTailsAndInPlace([87.5, -88, 1e30, .infinity, -.infinity, .nan, -104, 90],
                                      serial: AlexeyABLogistic.serial, reference: AlexeyABLogistic.reference)
    }

    /// Split across 1, 2 and 3 workers, every element is the reference's.
    func testParallelSplitsGiveTheReferencesBits() {
        checkParallelSplits(apply: AlexeyABLogistic.apply, reference: AlexeyABLogistic.reference)
    }

    #if DEBUG
    static let step = 6101
    #else
    static let step = 61
    #endif

    /// Calls `body` with chunks of every `step`-th Float bit pattern, from 0 up.
    private func forEverySixtyFirstFloat(_ body: ([Float]) -> Void) {
        let chunk = 1 << 16
        var pattern: UInt64 = 0
        while pattern <= UInt64(UInt32.max) {
            var input: [Float] = []
            input.reserveCapacity(chunk)
            while input.count < chunk && pattern <= UInt64(UInt32.max) {
                input.append(Float(bitPattern: UInt32(pattern)))
                pattern += UInt64(Self.step)
            }
            body(input)
        }
    }
}
