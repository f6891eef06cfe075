@testable import Kernels
import TestSupport
import XCTest

/// The int8 route's element-wise steps (`Quantization`) against their definitions, bit for bit.
final class QuantizationTests: XCTestCase {
    static let quantizations = [
        ActivationQuantization(scale: 0.05, zeroPoint: 20, levels: 255),
        ActivationQuantization(scale: 1.0 / 255, zeroPoint: 0, levels: 255),
        ActivationQuantization(scale: 0.1, zeroPoint: 64, levels: 127),
        ActivationQuantization(scale: 3, zeroPoint: 255, levels: 255),
    ]

    /// The vector path against `quantizeReference` on odd counts (tails), with ties, values
    /// beyond the range, infinities and NaN; signed and unsigned bytes; on 1 and 3 workers.
    func testQuantizeMatchesItsDefinition() {
        var generator = SplitMix64(state: 5)
        for q in Self.quantizations {
            for count in [1, 15, 16, 17, 1000, 70_001] {
                var x = (0..<count).map { _ in generator.uniform(-30, 30) * q.scale }
                let specials: [Float] = [.nan, .infinity, -.infinity, 0, -0.0, 0.5 * q.scale, 1.5 * q.scale, -0.5 * q.scale,
                                         2.5 * q.scale, 1e30, -1e30, Float(q.levels) * q.scale]
                for (i, special) in specials.enumerated() where i < count { x[(i * 7) % count] = special }
                for unsigned in [false, true] {
                    for threads in [1, 3] {
                        var out = [Int8](repeating: 99, count: count)
                        x.withUnsafeBufferPointer { x in
                            out.withUnsafeMutableBufferPointer {
                                Quantization.quantize(x.baseAddress!, count: count, into: $0.baseAddress!, q, unsigned: unsigned,
                                                      threads: threads)
                            }
                        }
                        let expected = x.map { Quantization.quantizeReference($0, q, unsigned: unsigned) }
                        XCTAssertEqual(out, expected, "\(q) count \(count) unsigned \(unsigned) threads \(threads)")
                    }
                }
            }
        }
    }

    /// The definition itself on chosen values: ties to even, the clamp, NaN to 0, the stored offset.
    func testQuantizeReferenceRounds() {
        let q = ActivationQuantization(scale: 0.5, zeroPoint: 10, levels: 255)
        func stored(_ x: Float) -> Int { Int(Quantization.quantizeReference(x, q)) + 128 }
        XCTAssertEqual(stored(0), 10, "0 is the zero point")
        XCTAssertEqual(stored(0.25), 10, "0.5 + 10 rounds to even: 10")
        XCTAssertEqual(stored(0.75), 12, "1.5 + 10 rounds to even: 12")
        XCTAssertEqual(stored(-100), 0)
        XCTAssertEqual(stored(1000), 255)
        XCTAssertEqual(stored(.nan), 0)
        XCTAssertEqual(Quantization.quantizeReference(1000, q, unsigned: true), Int8(bitPattern: 255))
        XCTAssertEqual(q.zero, Int8(10 - 128))
    }

    /// The split conversion against `Float(sum + compensation) · scale` on sums where a float
    /// rounds (above 2²⁴), negative ones and the ends of Int32; tails of every length.
    func testDequantizeMatchesFloatConversion() {
        let sums: [Int32] = [0, 1, -1, 65535, 65536, -65536, 16_777_217, -16_777_217, 33_554_435, 1 << 30, -(1 << 30),
                             Int32.max - 5, Int32.min + 5, 123_456_789, -98_765_431, 70_000, -70_001]
        for count in [1, 16, 17, sums.count] {
            for (compensation, scale) in [(Int32(0), Float(1)), (Int32(-1234), Float(0.0173)), (Int32(5), Float(3e-5))] {
                var row = Array(sums.prefix(count))
                row.withUnsafeMutableBytes { Quantization.dequantize($0.baseAddress!, count: count, compensation: compensation, scale: scale) }
                let floats = row.map { Float(bitPattern: UInt32(bitPattern: $0)) }
                let expected = sums.prefix(count).map { Float($0 &+ compensation) * scale }
                XCTAssertEqual(floats.map(\.bitPattern), expected.map(\.bitPattern), "count \(count), \(compensation), \(scale)")
                let column: [Int32] = sums.flatMap { sum -> [Int32] in [sum, 77, 77] }
                var out = [Float](repeating: .nan, count: count)
                column.withUnsafeBytes { column in
                    Quantization.dequantize(column: column.baseAddress!, count: count, stride: 3, compensation: compensation,
                                            scale: scale, into: &out)
                }
                XCTAssertEqual(out.map(\.bitPattern), expected.map(\.bitPattern), "column, count \(count)")
            }
        }
    }

    /// Per-filter symmetric weights: each value within half a step of the weight, in −127...127,
    /// the largest magnitude at ±127, a filter of zeros kept at scale 1, the sums of the values.
    func testWeightsRoundTripPerFilter() {
        var generator = SplitMix64(state: 11)
        let k = 37
        var weights = (0..<(5 * k)).map { _ in generator.uniform(-2, 2) }
        for i in (2 * k)..<(3 * k) { weights[i] = 0 }
        weights[4 * k + 3] = -9
        let quantized = weights.withUnsafeBufferPointer { Quantization.quantizeWeights($0, filters: 5) }
        for filter in 0..<5 {
            let row = weights[(filter * k)..<((filter + 1) * k)]
            let values = quantized.values[(filter * k)..<((filter + 1) * k)]
            let scale = quantized.scales[filter]
            let largest = row.map(\.magnitude).max()!
            XCTAssertEqual(scale, largest > 0 ? largest / 127 : 1, "filter \(filter)")
            for (w, v) in zip(row, values) {
                XCTAssertTrue((-127...127).contains(v))
                XCTAssertLessThanOrEqual(abs(w - scale * Float(v)), scale / 2 * 1.0001, "filter \(filter): \(w) as \(v)")
            }
            XCTAssertEqual(quantized.sums[filter], values.reduce(0) { $0 + Int32($1) })
            if largest > 0 { XCTAssertEqual(values.map(\.magnitude).max(), 127) }
        }
        XCTAssertEqual(quantized.values[4 * k + 3], -127)
    }
}
