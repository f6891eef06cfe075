@testable import Kernels
import TestSupport
import XCTest

/// The fused epilogue every route ends with against its reference, bit for bit.
final class EpilogueTests: XCTestCase {
    /// One fused pass per plane, as the GEMM workers run it on their row segments, against
    /// bias, activation and residual element by element, for every activation; values straddle
    /// 0 so both branches of leaky and relu run.
    func testFusedEpilogueMatchesTheReference() {
        var generator = SplitMix64(state: 5)
        for (filters, spatial) in [(3, 7), (1, 1), (64, 52 * 52)] {
            let values = (0..<(filters * spatial)).map { _ in generator.uniform(-3, 3) }
            let residual = (0..<(filters * spatial)).map { _ in generator.uniform(-1, 1) }
            let biases = (0..<filters).map { _ in generator.uniform(-1, 1) }
            for activation in Activation.allCases {
                for adding in [false, true] {
                    var fast = values, reference = values
                    residual.withUnsafeBufferPointer { r in
                        for f in 0..<filters {
                            let added = adding ? r.baseAddress! + f * spatial : nil
                            fast.withUnsafeMutableBufferPointer {
                                Epilogue.biasActivation($0.baseAddress! + f * spatial, count: spatial, bias: biases[f],
                                                        activation: activation, adding: added)
                            }
                            reference.withUnsafeMutableBufferPointer {
                                Epilogue.reference($0.baseAddress! + f * spatial, count: spatial, bias: biases[f],
                                                   activation: activation, adding: added)
                            }
                        }
                    }
                    XCTAssertEqual(fast.map(\.bitPattern), reference.map(\.bitPattern), "\(activation) \(filters)×\(spatial) \(adding)")
                }
            }
        }
    }

    /// `finishPooled` against darknet's order (every element finished by `reference`, then the
    /// first largest of each 2×2 window from −FLT_MAX), bit for bit, for every activation. The
    /// taps are mostly the values where the two orders part: ±0, the least subnormals (whose
    /// leaky `x / 10` underflows to −0), NaN, ±∞ and ±FLT_MAX, with biases of ±0 among them, so
    /// pooling first without the recomputation of zero, NaN and −FLT_MAX windows fails.
    func testFinishPooledIsDarknetsOrder() {
        let specials: [Float] = [0, -0.0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, -2 * .leastNonzeroMagnitude,
                                 .nan, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude]
        var generator = SplitMix64(state: 11)
        var recomputed = 0
        for activation in Activation.allCases {
            for width in [2, 16, 18, 38] {
                for bias: Float in [0, -0.0, 0.5, -0.25, -.greatestFiniteMagnitude] {
                    for _ in 0..<20 {
                        let rows = (0..<(2 * width)).map { _ -> Float in
                            generator.next() % 3 == 0 ? generator.uniform(-2, 2) : specials[Int(generator.next() % 10)]
                        }
                        var expected = [Float](repeating: 7, count: width / 2)
                        var finished = rows
                        finished.withUnsafeMutableBufferPointer {
                            Epilogue.reference($0.baseAddress!, count: 2 * width, bias: bias, activation: activation)
                        }
                        for x in 0..<(width / 2) {
                            var best = -Float.greatestFiniteMagnitude
                            for tap in [finished[2 * x], finished[2 * x + 1], finished[width + 2 * x], finished[width + 2 * x + 1]]
                            where tap > best { best = tap }
                            expected[x] = best
                        }
                        var pooled = [Float](repeating: 7, count: width / 2)
                        var scratch = rows
                        withUnsafePointer(to: bias) { biases in
                            let epilogue = Epilogue(biases: biases, activation: activation)
                            scratch.withUnsafeMutableBufferPointer { r in
                                pooled.withUnsafeMutableBufferPointer {
                                    epilogue.finishPooled(r.baseAddress!, width: width, filter: 0, into: $0.baseAddress!)
                                }
                            }
                        }
                        XCTAssertEqual(pooled.map(\.bitPattern), expected.map(\.bitPattern), "\(activation), width \(width), bias \(bias): \(rows)")
                        if activation.isNondecreasing { recomputed += expected.filter { $0 == 0 || !($0 > -.greatestFiniteMagnitude) }.count }
                    }
                }
            }
        }
        XCTAssertGreaterThan(recomputed, 100, "the windows where the orders part should be common here")
    }

    /// The three activations `finishPooled` pools first are the non-decreasing ones.
    func testNondecreasingActivations() {
        XCTAssertEqual(Activation.allCases.filter(\.isNondecreasing), [.linear, .leaky, .relu])
        let ramp = (-400...400).map { Float($0) / 64 } + [-.infinity, -.greatestFiniteMagnitude, -.leastNonzeroMagnitude, 0,
                                                          .leastNonzeroMagnitude, .greatestFiniteMagnitude, .infinity].sorted()
        for activation in [Activation.linear, .leaky, .relu] {
            let values = ramp.sorted().map(activation.value)
            XCTAssertTrue(zip(values, values.dropFirst()).allSatisfy { $0 <= $1 }, "\(activation)")
        }
    }
}
