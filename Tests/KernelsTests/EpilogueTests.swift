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
}
