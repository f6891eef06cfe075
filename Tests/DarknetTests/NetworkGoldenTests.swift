@testable import Darknet
import Foundation
import TestSupport
import XCTest

/// Whole networks against Debian's darknet (`libdarknet.so`), every layer, on the synthetic
/// input; goldens from `tools/regen-goldens` (Fixtures/README.md). Tolerance 1e-4 × (1 + the
/// layer's std) per sampled value and statistic; measured worst cases are about 1.4e-5.
/// The synthetic models run under every `ConvolutionAlgorithm` (auto is the default; Winograd
/// on every eligible layer is the worst case for rounding), all against the same tolerance.
final class NetworkGoldenTests: XCTestCase {
    /// Real yolov3-tiny weights.
    func testYolov3TinyRealWeightsEveryLayer() throws {
        let golden = try LayerGolden.load(try TestData.fixture("yolov3-tiny-real-416-layers.json"))
        let network = try Network(cfg: try TestData.cfg("yolov3-tiny"), weights: try TestData.path("yolov3-tiny.weights"),
                                  width: golden.width, height: golden.height)
        try assertMatchesGolden(network, golden, tolerance: 1e-4)
    }

    func testYolov3TinySyntheticEveryLayer() throws {
        try checkSynthetic(cfg: "yolov3-tiny", golden: "yolov3-tiny-416-synthetic.json")
    }

    /// Full yolov3.cfg at 416 (Debian's cfg says 608), all 107 layers.
    func testYolov3SyntheticEveryLayer() throws {
        try checkSynthetic(cfg: "yolov3", golden: "yolov3-416-synthetic.json")
    }

    /// yolov3-spp: maxpool 5/9/13 stride 1 and a four-way route.
    func testYolov3SppSyntheticEveryLayer() throws {
        try checkSynthetic(cfg: "yolov3-spp", golden: "yolov3-spp-416-synthetic.json")
    }
}

extension XCTestCase {
    /// Every layer of `cfg` with the golden's synthetic weights, under every convolution method.
    /// Our generator must write the very bytes the oracle fed darknet (same size and FNV-1a).
    func checkSynthetic(cfg: String, golden name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let golden = try LayerGolden.load(try TestData.fixture(name))
        let synthetic = try XCTUnwrap(golden.syntheticWeights)
        XCTAssertEqual(synthetic.specVersion, SyntheticWeights.specVersion)
        let model = try ModelDescription(contentsOf: try TestData.cfg(cfg), width: golden.width, height: golden.height)
        let bytes = SyntheticWeights.bytes(for: model, seed: synthetic.seed)
        XCTAssertEqual(bytes.count, synthetic.bytes, file: file, line: line)
        XCTAssertEqual(String(SyntheticWeights.fnv1a64(bytes), radix: 16).leftPadded(to: 16), synthetic.fnv1a64,
                       "the Swift generator differs from the oracle's", file: file, line: line)
        let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
        for algorithm in ConvolutionAlgorithm.allCases {
            let options = ExecutionOptions(convolutionAlgorithm: algorithm)
            try assertMatchesGolden(Network(model: model, weights: weights, options: options), golden, tolerance: 1e-4,
                                    file: file, line: line)
        }
    }
}

extension String {
    func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: Swift.max(0, length - count)) + self
    }
}
