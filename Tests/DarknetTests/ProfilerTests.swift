@testable import Darknet
import TestSupport
import XCTest

/// `Network.profile`: the same pass as `forward`, plus times that are consistent with one
/// monotonic clock. Nothing here asserts a speed (timed tests are forbidden), only structure:
/// one entry per layer, intervals nested in the pass, phases on convolutions only.
final class ProfilerTests: XCTestCase {
    /// yolov3-tiny at 128 with synthetic weights: 3×3 and 1×1 convolutions, maxpools, route,
    /// upsample and yolo layers.
    func tinyNetwork() throws -> Network {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3-tiny"), width: 128, height: 128)
        let bytes = SyntheticWeights.bytes(for: model, seed: 1)
        let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
        return try Network(model: model, weights: weights)
    }

    func testProfileComputesWhatForwardComputes() throws {
        let network = try tinyNetwork()
        let input = SyntheticWeights.input(network.model.inputShape)
        let plain = try network.forward(input)
        let profiled = try network.profile(input)
        XCTAssertEqual(profiled.outputs.map(\.layer), plain.map(\.layer))
        XCTAssertEqual(profiled.outputs.map(\.shape), plain.map(\.shape))
        // Same code path, same BLAS calls in the same order: bit-identical.
        XCTAssertEqual(profiled.outputs.map(\.values), plain.map(\.values))
    }

    func testOneTimePerLayerNestedInThePass() throws {
        let network = try tinyNetwork()
        let profile = try network.profile(SyntheticWeights.input(network.model.inputShape))
        XCTAssertEqual(profile.layers.map(\.layer), network.model.layers.map(\.index))
        // Layers run one after another inside the pass, so their intervals add up to at most the pass.
        XCTAssertLessThanOrEqual(profile.layers.reduce(0) { $0 + $1.seconds }, profile.seconds)
        for (time, layer) in zip(profile.layers, network.model.layers) {
            XCTAssertGreaterThanOrEqual(time.seconds, 0)
            guard case .convolutional(let conv) = layer.kind else {
                XCTAssertNil(time.phases, "layer \(layer.index) \(layer.typeName) has no phases")
                continue
            }
            let phases = try XCTUnwrap(time.phases, "convolution \(layer.index)")
            XCTAssertGreaterThan(time.seconds, 0, "a convolution takes some time")
            XCTAssertGreaterThan(phases.gemm, 0)
            XCTAssertGreaterThanOrEqual(phases.epilogue, 0)
            // The laps are taken inside the layer's interval.
            XCTAssertLessThanOrEqual(phases.total, time.seconds)
            if conv.isPointwise {
                XCTAssertEqual(phases.im2col, 0, "a pointwise convolution multiplies its input directly")
            } else {
                XCTAssertGreaterThan(phases.im2col, 0)
            }
        }
    }

    func testProfileChecksTheInputSize() throws {
        let network = try tinyNetwork()
        XCTAssertThrowsError(try network.profile([1, 2, 3])) { error in
            XCTAssertEqual(error as? NetworkError, .inputSize(expected: network.model.inputShape, actualCount: 3))
        }
    }
}
