@testable import Darknet
import Foundation
import Imaging
import TestSupport
import XCTest

/// Debian's classifier cfgs against Debian's darknet (`libdarknet.so` through
/// tools/oracle/darknet-oracle.c, goldens from `tools/regen-goldens`): synthetic weights
/// (spec v1, seed 1, generated at the test's input size) → every layer on the synthetic
/// input within 1e-4 × (1 + the layer's std), and darknet's `predict_classifier` top 5 on
/// data/dog.jpg (letterbox, `network_predict`, `top_k`) equal in order, scores within 1e-5.
///
/// Covered: tiny, darknet, darknet19, darknet53, extraction, densenet201, writing at 64×64,
/// alexnet at 128×128 (its last 3×3 maxpool needs a 2×2 or larger input), cifar at 28×28,
/// resnet18/34/50/101/152, resnext50/101/152, darknet19_448, darknet53_448, extraction.conv,
/// extraction22k, jnet-conv and vgg-conv at 64×64, cifar.test at 28×28, vgg-16 and strided at
/// 256×256 (their [crop] takes 224×224) — every cfg Debian ships whose sections are all supported.
final class ClassifierGoldenTests: XCTestCase {
    func testTiny() throws { try check("tiny", size: 64) }
    /// darknet.cfg, the "Darknet Reference" model.
    func testDarknetReference() throws { try check("darknet", size: 64) }
    /// Ends with a `[cost]` layer: `network_predict` returns the logistic convolution before it.
    func testWriting() throws { try check("writing", size: 64) }
    /// `[dropout]` between convolutions, at the cfg's own 28×28.
    func testCifar() throws { try check("cifar", size: 28) }
    func testDarknet19() throws { try check("darknet19", size: 64) }
    func testDarknet53() throws { try check("darknet53", size: 64) }
    func testExtraction() throws { try check("extraction", size: 64) }
    func testDensenet201() throws { try check("densenet201", size: 64) }
    /// `[connected]` and `[dropout]` layers.
    func testAlexnet() throws { try check("alexnet", size: 128) }
    /// Residual `[shortcut]`s (with a 1×1 projection where the shapes change).
    func testResnet18() throws { try check("resnet18", size: 64) }
    func testResnet50() throws { try check("resnet50", size: 64) }
    /// ResNeXt: grouped 3×3 convolutions (groups=32) inside the residual blocks.
    func testResnext50() throws { try check("resnext50", size: 64) }
    func testResnet34() throws { try check("resnet34", size: 64) }
    func testResnet101() throws { try check("resnet101", size: 64) }
    func testResnet152() throws { try check("resnet152", size: 64) }
    func testResnext101() throws { try check("resnext101-32x4d", size: 64) }
    func testResnext152() throws { try check("resnext152-32x4d", size: 64) }
    func testDarknet19At448Cfg() throws { try check("darknet19_448", size: 64) }
    func testDarknet53At448Cfg() throws { try check("darknet53_448", size: 64) }
    /// Convolutions only: top-K of the last convolution's output.
    func testExtractionConv() throws { try check("extraction.conv", size: 64) }
    /// 21842 classes.
    func testExtraction22k() throws { try check("extraction22k", size: 64) }
    func testJnetConv() throws { try check("jnet-conv", size: 64) }
    func testVggConv() throws { try check("vgg-conv", size: 64) }
    func testCifarTest() throws { try check("cifar.test", size: 28) }
    /// `[crop]` 224×224 from 256×256 (so at full size), then VGG-16's convolutions and its
    /// 25088 → 4096 `[connected]` layers.
    func testVgg16() throws { try check("vgg-16", size: 256) }
    /// `[crop]`, strided convolutions and `[connected]` layers, at full size like vgg-16.
    func testStrided() throws { try check("strided", size: 256) }

    struct TopGolden: Decodable {
        var networkWidth: Int
        var networkHeight: Int
        var classes: Int
        var top: [[Double]]
    }

    func check(_ name: String, size: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let golden = try LayerGolden.load(try TestData.fixture("\(name)-\(size)-synthetic.json"))
        let synthetic = try XCTUnwrap(golden.syntheticWeights)
        XCTAssertEqual(synthetic.specVersion, SyntheticWeights.specVersion)
        let model = try ModelDescription(contentsOf: try TestData.cfg(name), width: size, height: size)
        let bytes = SyntheticWeights.bytes(for: model, seed: synthetic.seed)
        XCTAssertEqual(bytes.count, synthetic.bytes, file: file, line: line)
        XCTAssertEqual(String(SyntheticWeights.fnv1a64(bytes), radix: 16).leftPadded(to: 16), synthetic.fnv1a64,
                       "the Swift generator differs from the oracle's", file: file, line: line)
        let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
        try assertMatchesGolden(Network(model: model, weights: weights), golden, tolerance: 1e-4, file: file, line: line)

        let top = try JSONDecoder().decode(TopGolden.self, from: Data(contentsOf: try TestData.fixture("\(name)-\(size)-classify.json")))
        XCTAssertEqual([top.networkWidth, top.networkHeight], [size, size], file: file, line: line)
        let classifier = try Classifier(model: model, weights: weights)
        XCTAssertEqual(classifier.classCount, top.classes, file: file, line: line)
        let image = try Image(contentsOf: try TestData.path("data/dog.jpg"))
        let result = try classifier.classify(image, top: top.top.count)
        XCTAssertEqual(result.map(\.index), top.top.map { Int($0[0]) }, "top-\(top.top.count) order", file: file, line: line)
        for (ours, theirs) in zip(result, top.top) {
            XCTAssertEqual(Double(ours.confidence), theirs[1], accuracy: 1e-5, file: file, line: line)
        }
    }
}
