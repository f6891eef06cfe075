@testable import Darknet
import Foundation
import XCTest

/// AlexeyAB's weighted / multi-layer `[shortcut]` (`ShortcutMultilayer.swift`). OpenCV DNN
/// 4.14's Darknet importer parses `weights_type` but ignores it (it adds the layers unweighted),
/// so it is no reference here: the golden comes from AlexeyAB's own darknet.
final class ShortcutMultilayerTests: XCTestCase {
    private struct Golden: Decodable {
        struct Layer: Decodable {
            var index: Int
            var shape: [Int]
            var values: [Float]
        }
        var reference: String
        var layers: [Layer]
    }

    /// The oracle's weights (tools/oracle/alexeyab-oracle.c): header 0.2.0, seen 0 (uint64),
    /// then v[i] = ((i·37) mod 101) / 101 − 0.3, as many as the model reads.
    static func rampWeights(for model: ModelDescription) -> [UInt8] {
        var bytes: [UInt8] = []
        for value: Int32 in [0, 2, 0] { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        withUnsafeBytes(of: UInt64(0)) { bytes.append(contentsOf: $0) }
        for i in 0..<(WeightsReader.parameterBytes(for: model) / 4) {
            let value = Float((i * 37) % 101) / 101 - Float(0.3)
            withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        }
        return bytes
    }

    /// Reference: AlexeyAB's darknet (libdarknet.so built from its sources, CPU, via
    /// tools/oracle/alexeyab-oracle.c; `tools/regen-goldens-alexeyab`): every layer of
    /// Fixtures/shortcut-weighted.cfg — per_feature/softmax, per_channel/softmax with three
    /// sources of which one has fewer channels, per_channel/relu, unweighted two-source with
    /// swish, per_layer/avg_relu with mish — all values within 1e-4·(1 + |expected|).
    /// AlexeyAB reads each shortcut's weights in layer order between the convolutions', which
    /// the weight count and the match check.
    func testMatchesAlexeyABDarknet() throws {
        let golden = try JSONDecoder().decode(Golden.self, from: Data(contentsOf: try TestData.fixture("shortcut-weighted-alexeyab.json")))
        let model = try ModelDescription(contentsOf: try TestData.fixture("shortcut-weighted.cfg").path)
        // 3 convolutions' biases+weights (4 + 108, 4 + 16, 2 + 8, 4 + 72) and the shortcuts' 2 + 16 + 12 + 2.
        XCTAssertEqual(WeightsReader.parameterBytes(for: model) / 4, 112 + 20 + 10 + 76 + 2 + 16 + 12 + 2)
        let bytes = Self.rampWeights(for: model)
        let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "ramp", for: model) }
        XCTAssertEqual(golden.layers.count, model.layers.count)
        var checked = 0
        try Network(model: model, weights: weights).forward(SyntheticWeights.input(model.inputShape)) { layer, values in
            let expected = golden.layers[layer.index]
            XCTAssertEqual(expected.shape, [layer.output.channels, layer.output.height, layer.output.width])
            XCTAssertEqual(expected.values.count, values.count, "layer \(layer.index)")
            for (i, (ours, theirs)) in zip(values, expected.values).enumerated() where abs(ours - theirs) > 1e-4 * (1 + abs(theirs)) {
                XCTFail("layer \(layer.index) [\(i)]: \(ours) vs AlexeyAB's \(theirs)")
                return
            }
            checked += 1
        }
        XCTAssertEqual(checked, model.layers.count)
    }

    /// Reference: `shortcut_multilayer_cpu` by hand. Input [6, 8] (1×1×2); layer 0 (maxpool
    /// size 1) keeps it, layer 1 (upsample scale 0.5) makes the previous layer [3, 4]; the
    /// shortcut adds layer 0 with per_channel weights [w₀(c0), w₀(c1), w₁(c0), w₁(c1)] =
    /// [1, 2, −1, 0.5]: none → [3·1 − 6·1, 4·2 + 8·0.5] = [−3, 12]; relu (AlexeyAB's
    /// inference lrelu, max(w, 0.001)) → channel 0 weights (1, 0.001) / 1.0011, channel 1
    /// (2, 0.5) / 2.5001; softmax → channel 0 weights
    /// (e⁰, e⁻²) / (e⁰ + e⁻² + 0.0001).
    func testPerChannelWeightsAndNormalizations() throws {
        func run(_ normalization: String) throws -> [Float] {
            let cfg = "[net]\nwidth=1\nheight=1\nchannels=2\n[maxpool]\nsize=1\nstride=1\n[upsample]\nstride=1\nscale=0.5\n"
                + "[shortcut]\nfrom=0\nweights_type=per_channel\nweights_normalization=\(normalization)\n"
            let model = try ModelDescription(text: cfg)
            let weights = [2: ConvolutionWeights(weights: [1, 2, -1, 0.5], biases: [])]
            var result: [Float] = []
            try Network(model: model, weights: weights).forward([6, 8]) { layer, values in
                if layer.index == 2 { result = Array(values) }
            }
            return result
        }
        let plain: [Float] = [-3, 12]  // 3·1 − 6·1, 4·2 + 8·0.5
        XCTAssertEqual(try run("none"), plain)
        let relu = try run("relu")
        let relu0: Float = (3 * 1 + 6 * 0.001) / 1.0011
        let relu1: Float = (4 * 2 + 8 * 0.5) / 2.5001
        XCTAssertEqual(relu[0], relu0, accuracy: 1e-6)
        XCTAssertEqual(relu[1], relu1, accuracy: 1e-5)
        let softmax = try run("softmax")
        let small: Float = expf(-2)
        let sum0: Float = 1 + small + 0.0001
        let softmax0: Float = (3 + 6 * small) / sum0
        XCTAssertEqual(softmax[0], softmax0, accuracy: 1e-5)
    }

    /// Parse errors: an unknown weights_type is a typed error at its key; alpha/beta (pjreddie
    /// only) with several sources; sources of another width.
    func testInvalidCfgsAreTypedErrors() {
        let head = "[net]\nwidth=4\nheight=4\nchannels=2\n[maxpool]\nsize=1\nstride=1\n[maxpool]\nsize=2\nstride=2\n[maxpool]\nsize=1\nstride=1\n"
        func key(_ body: String) -> String? {
            do {
                _ = try ModelDescription(text: head + "[shortcut]\n" + body)
                return nil
            } catch let error as CfgError {
                return error.location?.key
            } catch { return "\(error)" }
        }
        XCTAssertEqual(key("from=-1\nweights_type=per_pixel\n"), "weights_type")
        XCTAssertEqual(key("from=-1\nweights_type=per_channel\nweights_normalization=max\n"), "weights_normalization")
        XCTAssertEqual(key("from=-1,-2\nalpha=0.5\n"), "alpha")
        XCTAssertEqual(key("from=-1\nweights_type=per_feature\nbeta=2\n"), "beta")
        XCTAssertEqual(key("from=-1,-3\n"), "from")  // layer 0 is 4×4, the others 2×2
        XCTAssertNil(key("from=-1,-2\nactivation=leaky\n"))
    }
}
