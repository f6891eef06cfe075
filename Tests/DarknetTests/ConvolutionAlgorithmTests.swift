@testable import Darknet
import XCTest

/// Which layers `auto` gives to Winograd, and that the choice is what runs.
final class ConvolutionAlgorithmTests: XCTestCase {
    func testAutoOnYOLOv3StaysWithinTheMemoryShare() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3"), width: 416, height: 416)
        let methods = model.convolutionMethods(.auto)
        let winograd = model.layers.filter { methods[$0.index] == .winograd }
        // 3×3 stride-1 layers with ≥ 16 input channels, largest grids first: the 208, 104 and
        // 52 grids fit in 20% of the weights; the 26×26 and 13×13 ones (74% of them) do not.
        XCTAssertEqual(Set(winograd.map(\.output.height)), [208, 104, 52])
        XCTAssertEqual(winograd.count, 14)
        let plain = model.layers.indices.reduce(0) { $0 + model.parameterBytes(ofLayer: $1, method: .im2col) }
        let chosen = model.layers.indices.reduce(0) { $0 + model.parameterBytes(ofLayer: $1, method: methods[$1]) }
        XCTAssertLessThanOrEqual(Double(chosen - plain), Double(plain) * ModelDescription.winogradMemoryShare)
        XCTAssertEqual(methods[0], .im2col, "3 input channels: too thin for Winograd")
        XCTAssertEqual(methods[1], .im2col, "stride 2")
        XCTAssertEqual(methods[2], .gemm, "1×1")
    }

    func testForcedMethods() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3-tiny"), width: 416, height: 416)
        let im2col = model.convolutionMethods(.im2col)
        XCTAssertFalse(im2col.contains(.winograd))
        let winograd = model.convolutionMethods(.winograd)
        for layer in model.layers {
            guard case .convolutional(let conv) = layer.kind else { XCTAssertNil(winograd[layer.index]); continue }
            XCTAssertEqual(winograd[layer.index] == .winograd, conv.size == 3 && conv.stride == 1, "layer \(layer.index)")
        }
    }

    /// `Network.prepare` transforms once: Winograd layers drop their plain weights, and
    /// networks built from prepared parameters run the same methods.
    func testPreparedParametersKeepTheirMethod() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3-tiny"), width: 416, height: 416)
        let bytes = SyntheticWeights.bytes(for: model, seed: 3)
        let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
        let prepared = Network.prepare(weights, for: model, algorithm: .auto)
        let network = try Network(model: model, weights: prepared, algorithm: .auto)
        XCTAssertEqual(network.methods, model.convolutionMethods(.auto))
        for layer in model.layers where network.methods[layer.index] == .winograd {
            XCTAssertEqual(prepared[layer.index]?.weights.count, 0)
            XCTAssertEqual(network.parameterBytes[layer.index], model.parameterBytes(ofLayer: layer.index, method: .winograd))
        }
        // The same outputs as im2col within float rounding (the golden tests bound it against darknet).
        let input = SyntheticWeights.input(model.inputShape)
        let fast = try network.forward(input)
        let plain = try Network(model: model, weights: weights, algorithm: .im2col).forward(input)
        for (a, b) in zip(fast, plain) {
            let scale = b.values.map(abs).max() ?? 1
            for i in a.values.indices { XCTAssertEqual(a.values[i], b.values[i], accuracy: 1e-4 * scale) }
        }
    }
}
