@testable import Darknet
import Foundation
import XCTest

/// AlexeyAB's weighted / multi-layer `[shortcut]` (`ShortcutMultilayer.swift`). OpenCV DNN
/// 4.14's Darknet importer parses `weights_type` but ignores it (it adds the layers unweighted)
/// and pjreddie's darknet has no weighted shortcut, so the references here are cases worked by
/// hand from AlexeyAB's `shortcut_multilayer_cpu` and its inference-time weight normalisation.
final class ShortcutMultilayerTests: XCTestCase {
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
            let weights = ModelWeights([2: .shortcut(ShortcutWeights(weights: [1, 2, -1, 0.5]))])
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

    /// Reference: `shortcut_multilayer_cpu` by hand, two sources. Input [6, 8]; layer 0 (maxpool
    /// size 1) keeps it, layer 1 (upsample scale 0.5) gives [3, 4]; the shortcut at layer 2 adds
    /// `from=-1,-2` (layers 1 and 0) to the previous layer (layer 1). Unweighted: [3 + 3 + 6,
    /// 4 + 4 + 8] = [12, 16]. per_feature weights [w_previous, w_from1, w_from2] = [1, 2, −1]
    /// with `none`: [3 + 6 − 6, 4 + 8 − 8] = [3, 4].
    func testTwoSourcesUnweightedAndPerFeature() throws {
        func run(_ extra: String, weights: [Float]?) throws -> [Float] {
            let cfg = "[net]\nwidth=1\nheight=1\nchannels=2\n[maxpool]\nsize=1\nstride=1\n[upsample]\nstride=1\nscale=0.5\n"
                + "[shortcut]\nfrom=-1,-2\n" + extra
            let model = try ModelDescription(text: cfg)
            let parameters = ModelWeights(weights.map { [2: LayerWeights.shortcut(ShortcutWeights(weights: $0))] } ?? [:])
            var result: [Float] = []
            try Network(model: model, weights: parameters).forward([6, 8]) { layer, values in
                if layer.index == 2 { result = Array(values) }
            }
            return result
        }
        XCTAssertEqual(try run("", weights: nil), [12, 16])
        XCTAssertEqual(try run("weights_type=per_feature\nweights_normalization=none\n", weights: [1, 2, -1]), [3, 4])
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
