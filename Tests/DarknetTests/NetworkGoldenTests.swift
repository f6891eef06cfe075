@testable import Darknet
import Foundation
import XCTest

/// Whole networks against Debian's darknet (`libdarknet.so`), layer by layer.
final class NetworkGoldenTests: XCTestCase {
    /// Real yolov3-tiny weights on the synthetic input.
    func testYolov3TinyRealWeightsEveryLayer() throws {
        let golden = try LayerGolden.load(try TestData.fixture("yolov3-tiny-real-416-layers.json"))
        let network = try Network(cfg: try TestData.cfg("yolov3-tiny"), weights: try TestData.path("yolov3-tiny.weights"))
        try assertMatchesGolden(network, golden, tolerance: 1e-4)
    }
}

extension NetworkGoldenTests {
    /// Full yolov3.cfg at 416 with synthetic weights (seed 1), every one of its 107 layers.
    func testYolov3SyntheticEveryLayer() throws {
        let golden = try LayerGolden.load(try TestData.fixture("yolov3-416-synthetic.json"))
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3"), width: 416, height: 416)
        let bytes = SyntheticWeights.bytes(for: model, seed: 1)
        let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
        try assertMatchesGolden(Network(model: model, weights: weights), golden, tolerance: 1e-4)
    }
}
