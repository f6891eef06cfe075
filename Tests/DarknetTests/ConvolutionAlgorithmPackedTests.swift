@testable import Darknet
import XCTest

/// `auto` with OpenBLAS's packed kernel (`PackedGEMM`): streamed F(4×4) by default, the
/// budget on the small grids first; and the streamed F(4×4) method end to end. Skipped where
/// this machine's OpenBLAS has no packed kernel the engine knows.
final class ConvolutionAlgorithmPackedTests: XCTestCase {
    override func setUpWithError() throws {
        try XCTSkipIf(PackedGEMM.active == nil, "OpenBLAS's \(GEMM.coreName) kernel is not available here")
    }

    private func plannedBytes(_ model: ModelDescription, _ methods: [ConvolutionMethod?], batch: Int = 1) -> Int {
        model.layers.indices.reduce(0) { $0 + model.parameterBytes(ofLayer: $1, method: methods[$1]) }
            + model.activationBytes(batch: batch) + model.workspaceBytes(methods: methods, batch: batch) + model.processReserveBytes
    }

    private func indices(_ model: ModelDescription, _ methods: [ConvolutionMethod?], _ method: ConvolutionMethod) -> [Int] {
        model.layers.map(\.index).filter { methods[$0] == method }
    }

    /// yolov3 at 416: the stride-2 Winograd on the 208, 104 and 52 outputs (layers 1, 5, 12: 13 MB
    /// of transformed weights); its 2×2 tiles on the 26×26 output (layer 37: 169 tiles, 8.4 MB
    /// more) before the seven 13×13 layers' F(2×2), then on the 13×13 output (layer 62: 49 tiles,
    /// 33.5 MB more) before any F(4×4) upgrade; the 208 grid pre-transformed F(4×4) with what is
    /// left, the 104, 52 and 26 grids streamed; within twice the weights, and a 13×13 layer
    /// under F(4×4) or one 26×26 layer pre-transformed F(4×4) would not be (F(2×2) is not tried
    /// there: streamed F(4×4) runs faster).
    func testAutoOnYOLOv3At416() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3"), width: 416, height: 416)
        let methods = model.convolutionMethods(.auto)
        XCTAssertEqual(indices(model, methods, .winogradStride2), [1, 5, 12])
        XCTAssertEqual(indices(model, methods, .winogradStride2F2), [37, 62])
        XCTAssertEqual(indices(model, methods, .winograd), [3])
        XCTAssertEqual(indices(model, methods, .winogradF2), [64, 67, 70, 73, 76, 78, 80])
        let streamed = indices(model, methods, .winogradStreamed)
        XCTAssertEqual(Set(streamed.map { model.layers[$0].output.height }), [104, 52, 26])
        XCTAssertEqual(streamed.count, 24)
        let limit = 2 * WeightsReader.parameterBytes(for: model)
        XCTAssertLessThanOrEqual(plannedBytes(model, methods), limit)
        for (layer, method) in [(64, ConvolutionMethod.winograd), (39, .winograd)] {
            var more = methods
            more[layer] = method
            XCTAssertGreaterThan(plannedBytes(model, more), limit, "layer \(layer) under \(method) would have fitted")
        }
        XCTAssertTrue(model.autoIsMemoryBound())
        XCTAssertEqual(methods[0], .im2col, "3 input channels: too thin for Winograd")
    }

    /// At 608 the arena is 71 MB: the stride-2 Winograd on the 304, 152 and 76 outputs, its 2×2
    /// tiles on the 38×38 output (361 tiles), six of the seven 19×19 layers (25 F(4×4) tiles)
    /// pre-transformed F(2×2); the 152×152, 76×76 and 38×38 grids and the last 19×19 layer
    /// streamed, and no room for the 19×19 stride-2 output. At 800 (123 MB of activations) the
    /// 25×25 layers (49 tiles, 18.9 MB of weights each) find no room for F(4×4)'s 57 MB more: they
    /// and the 50×50 ones run streamed, and what is left goes to the stride-2 layers and the
    /// largest grids.
    func testAutoOnYOLOv3At608And800() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3"), width: 608, height: 608)
        let methods = model.convolutionMethods(.auto)
        XCTAssertEqual(indices(model, methods, .winogradStride2), [1, 5, 12])
        XCTAssertEqual(indices(model, methods, .winogradStride2F2), [37])
        XCTAssertEqual(methods[62], .im2col)
        XCTAssertEqual(indices(model, methods, .winogradF2), [64, 67, 70, 73, 76, 78])
        XCTAssertEqual(Set(indices(model, methods, .winogradStreamed).map { model.layers[$0].output.height }), [152, 76, 38, 19])
        XCTAssertLessThanOrEqual(plannedBytes(model, methods), 2 * WeightsReader.parameterBytes(for: model))
        XCTAssertTrue(model.autoIsMemoryBound())
        let large = try ModelDescription(contentsOf: try TestData.cfg("yolov3"), width: 800, height: 800)
        let all = large.convolutionMethods(.auto)
        XCTAssertEqual(all.compactMap { $0 }.filter(\.isWinograd).count, 36)
        XCTAssertEqual(indices(large, all, .winogradStride2), [1, 5, 12])
        XCTAssertEqual(indices(large, all, .winogradStride2F2), [37])
        XCTAssertEqual(Set(indices(large, all, .winogradStreamed).map { large.layers[$0].output.height }), [100, 50, 25])
        XCTAssertEqual(Set(indices(large, all, .winograd).map { large.layers[$0].output.height }), [400, 200])
        XCTAssertLessThanOrEqual(plannedBytes(large, all), 2 * WeightsReader.parameterBytes(for: large))
    }

    /// yolov3-tiny is a small model (`winogradAllowance`: 4× its 35 MB): F(4×4) pre-transformed on
    /// every layer with 16 channels or more (the pools after 2, 4, 6 stay fused); not memory-bound.
    /// With the 32 MB floor alone it got F(2×2) on the 13×13 layers and layer 21 streamed.
    func testAutoOnTiny() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3-tiny"), width: 416, height: 416)
        let parameters = WeightsReader.parameterBytes(for: model)
        XCTAssertEqual(ModelDescription.winogradAllowance(parameters: parameters), 4 * parameters)
        let methods = model.convolutionMethods(.auto)
        XCTAssertEqual(indices(model, methods, .winograd), [2, 4, 6, 8, 10, 12, 14, 21])
        XCTAssertEqual(methods[0], .im2col)
        XCTAssertFalse(model.autoIsMemoryBound())
        XCTAssertLessThanOrEqual(plannedBytes(model, methods), 5 * parameters + model.processReserveBytes)
    }

    /// Large models keep the 32 MB floor: yolov3's 248 MB of weights.
    func testLargeModelsKeepTheFloor() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3"), width: 416, height: 416)
        XCTAssertEqual(ModelDescription.winogradAllowance(parameters: WeightsReader.parameterBytes(for: model)),
                       ModelDescription.winogradMemoryFloor)
    }

    /// The streamed F(4×4) holds the plain weights (as many floats as darknet's, reordered in
    /// panels) and computes what im2col does within float rounding; forced, it takes every
    /// 3×3 stride-1 layer.
    func testStreamedF4HoldsThePlainWeights() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3-tiny"), width: 416, height: 416)
        let bytes = SyntheticWeights.bytes(for: model, seed: 4)
        let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
        let network = try Network(model: model, weights: weights, algorithm: .winogradStreamed)
        XCTAssertEqual(network.methods, model.convolutionMethods(.winogradStreamed))
        for layer in model.layers {
            guard case .convolutional(let conv) = layer.kind else { continue }
            XCTAssertEqual(network.methods[layer.index] == .winogradStreamed, conv.winogradEligible, "layer \(layer.index)")
            guard network.methods[layer.index] == .winogradStreamed else { continue }
            XCTAssertEqual(network.parameterBytes[layer.index], weights[layer.index]?.bytes, "layer \(layer.index)")
        }
        try assertMatchesIm2col(network, model: model, weights: weights)
    }

    /// 1×1 convolutions keep darknet's weight count, packed for the kernel once at load, and
    /// compute what the `cblas_sgemm` path does within rounding (every output of yolov3-tiny).
    func testPointwiseWeightsArePacked() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3-tiny"), width: 416, height: 416)
        let bytes = SyntheticWeights.bytes(for: model, seed: 6)
        let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
        let prepared = Network.prepare(weights, for: model, algorithm: .im2col)
        let network = try Network(model: model, weights: prepared, algorithm: .im2col)
        let pointwise = model.layers.filter { network.methods[$0.index] == .gemm }.map(\.index)
        XCTAssertEqual(pointwise, [13, 15, 18, 22])
        for index in pointwise {
            XCTAssertEqual(prepared[index]?.weightsPacked, true, "layer \(index)")
            XCTAssertEqual(prepared[index]?.weights.count, weights[index]?.weights.count)
        }
        PackedGEMM.enabled = false
        defer { PackedGEMM.enabled = true }
        let plain = try Network(model: model, weights: Network.prepare(weights, for: model, algorithm: .im2col), algorithm: .im2col)
        XCTAssertTrue(pointwise.allSatisfy { plain.methods[$0] == .gemm })
        try assertSameOutputs(network, plain, model: model, accuracy: 1e-5)
    }
}
