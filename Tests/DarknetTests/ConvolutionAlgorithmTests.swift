@testable import Darknet
import XCTest

/// Which layers `auto` gives to Winograd, and that the choice is what runs, without OpenBLAS's
/// packed kernel (`PackedGEMM.enabled` off: the `cblas_sgemm` policy, as on a BLAS without
/// it; `ConvolutionAlgorithmPackedTests` has the policy with it).
final class ConvolutionAlgorithmTests: XCTestCase {
    private var packedWasEnabled = true

    override func setUp() {
        packedWasEnabled = PackedGEMM.enabled
        PackedGEMM.enabled = false
    }

    override func tearDown() { PackedGEMM.enabled = packedWasEnabled }

    /// Parameter bytes of every layer under `methods`.
    private func parameterBytes(_ model: ModelDescription, _ methods: [ConvolutionMethod?]) -> Int {
        model.layers.indices.reduce(0) { $0 + model.parameterBytes(ofLayer: $1, method: methods[$1]) }
    }

    /// What `auto` plans to hold: parameters as chosen, arena, workspace and the process reserve.
    private func plannedBytes(_ model: ModelDescription, _ methods: [ConvolutionMethod?], batch: Int = 1) -> Int {
        parameterBytes(model, methods) + model.activationBytes(batch: batch)
            + model.workspaceBytes(methods: methods, batch: batch) + model.processReserveBytes
    }

    /// yolov3 at `size` and `auto`'s choice, with the layers it gives F(4×4), F(2×2) and the streamed F(2×2).
    private func yolov3Auto(size: Int) throws
        -> (model: ModelDescription, methods: [ConvolutionMethod?], f4: [Layer], f2: [Layer], streamed: [Layer]) {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3"), width: size, height: size)
        let methods = model.convolutionMethods(.auto)
        return (model, methods, model.layers.filter { methods[$0.index] == .winograd },
                model.layers.filter { methods[$0.index] == .winogradF2 },
                model.layers.filter { methods[$0.index] == .winogradF2Streamed })
    }

    func testAutoOnYOLOv3At416StaysWithinTwiceTheWeights() throws {
        let (model, methods, f4, f2, streamed) = try yolov3Auto(size: 416)
        // 3×3 stride-1 layers with ≥ 16 input channels, largest grids first: F(4×4) on the
        // 208, 104 and 52 grids, F(2×2) on the 26 grid (49 F(4×4) tiles: too few) and on the
        // first five 13×13 layers (18.9 MB of weights each, 14.7 MB more transformed: the
        // shortcuts share their convolutions' blocks, 33 MB of activations instead of 44, and
        // the process reserve follows the input size); a sixth would pass twice the weights,
        // so the other two run streamed.
        XCTAssertEqual(Set(f4.map(\.output.height)), [208, 104, 52])
        XCTAssertEqual(f4.count, 14)
        XCTAssertEqual(f2.filter { $0.output.height == 26 }.count, 11)
        XCTAssertEqual(f2.filter { $0.output.height == 13 }.map(\.index), [64, 67, 70, 73, 76])
        XCTAssertEqual(f2.count, 16)
        XCTAssertEqual(streamed.map(\.index), [78, 80])
        let limit = 2 * WeightsReader.parameterBytes(for: model)
        XCTAssertLessThanOrEqual(plannedBytes(model, methods), limit)
        var more = methods
        more[78] = .winogradF2
        XCTAssertGreaterThan(plannedBytes(model, more), limit, "a sixth 13×13 layer would have fitted")
        XCTAssertEqual(methods[0], .im2col, "3 input channels: too thin for Winograd")
        XCTAssertEqual(methods[1], .im2col, "stride 2")
        XCTAssertEqual(methods[2], .gemm, "1×1")
    }

    /// At 608 the arena is 71 MB instead of 33: F(4×4) on the three largest grids, F(2×2)
    /// on all eleven 38×38 layers rather than F(4×4) on three of them and on the first two 19×19
    /// layers, and the other five 19×19 layers streamed (their workspace fits within the 38×38
    /// layers').
    func testAutoOnYOLOv3At608GivesAGridOneMethod() throws {
        let (model, methods, f4, f2, streamed) = try yolov3Auto(size: 608)
        XCTAssertEqual(Set(f4.map(\.output.height)), [304, 152, 76])
        XCTAssertEqual(f4.count, 14)
        XCTAssertEqual(f2.filter { $0.output.height == 38 }.count, 11)
        XCTAssertEqual(f2.filter { $0.output.height == 19 }.map(\.index), [64, 67])
        XCTAssertEqual(Set(streamed.map(\.output.height)), [19])
        XCTAssertEqual(streamed.count, 5)
        XCTAssertLessThanOrEqual(plannedBytes(model, methods), 2 * WeightsReader.parameterBytes(for: model))
    }

    /// A batch's activations come out of the same budget: four images at 416 leave less for
    /// transformed weights than one (eight images: only the floor), within twice the weights.
    func testAutoPlansForTheBatch() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3"), width: 416, height: 416)
        let one = model.convolutionMethods(.auto)
        let four = model.convolutionMethods(.auto, batch: 4)
        let eight = model.convolutionMethods(.auto, batch: 8)
        XCTAssertGreaterThan(model.activationBytes(batch: 4), 4 * model.activationBytes() - 4096)
        let plain = parameterBytes(model, model.convolutionMethods(.im2col))
        let extra = { (methods: [ConvolutionMethod?]) in self.parameterBytes(model, methods) - plain }
        XCTAssertLessThan(extra(four), extra(one))
        XCTAssertLessThanOrEqual(plannedBytes(model, four, batch: 4), 2 * WeightsReader.parameterBytes(for: model))
        XCTAssertLessThan(extra(eight), extra(four))
        XCTAssertLessThanOrEqual(extra(eight), ModelDescription.winogradMemoryFloor)
        XCTAssertGreaterThan(eight.filter { $0?.isWinograd == true }.count, 0, "the floor still buys the large grids")
    }

    /// A small model gets the memory floor: yolov3-tiny's 35 MB of weights allow 32 MB more,
    /// so every eligible layer runs Winograd, F(2×2) on the 26×26 and 13×13 grids.
    func testAutoOnTinyUsesTheFloor() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3-tiny"), width: 416, height: 416)
        let methods = model.convolutionMethods(.auto)
        for layer in model.layers {
            guard case .convolutional(let conv) = layer.kind, conv.winogradEligible, layer.input.channels >= 16 else { continue }
            XCTAssertEqual(methods[layer.index], layer.output.height >= 52 ? .winograd : .winogradF2, "layer \(layer.index)")
        }
        XCTAssertEqual(methods.compactMap { $0 }.filter(\.isWinograd).count, 8)
    }

    /// yolov3's choice is bound by twice its weights (streamed 13×13 layers at 416 and 608;
    /// only the floor for a batch of 8), so `detect` runs its stages one after another;
    /// yolov3-tiny gets every layer it wants and keeps the overlapping pipeline.
    func testMemoryBoundOnlyWhenAutoHadToGiveUpWinograd() throws {
        for size in [416, 608] {
            let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3"), width: size, height: size)
            XCTAssertTrue(model.autoIsMemoryBound(), "yolov3 at \(size)")
            XCTAssertTrue(model.autoIsMemoryBound(batch: 8), "yolov3 at \(size), 8 images")
        }
        let tiny = try ModelDescription(contentsOf: try TestData.cfg("yolov3-tiny"), width: 416, height: 416)
        XCTAssertFalse(tiny.autoIsMemoryBound())
        XCTAssertFalse(tiny.autoIsMemoryBound(batch: 4))
    }

    func testForcedMethods() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3-tiny"), width: 416, height: 416)
        let im2col = model.convolutionMethods(.im2col)
        XCTAssertFalse(im2col.contains(.winograd))
        for (algorithm, method) in [(ConvolutionAlgorithm.winograd, ConvolutionMethod.winograd), (.winogradF2, .winogradF2),
                                    (.winogradF2Streamed, .winogradF2Streamed)] {
            let methods = model.convolutionMethods(algorithm)
            for layer in model.layers {
                guard case .convolutional(let conv) = layer.kind else { XCTAssertNil(methods[layer.index]); continue }
                XCTAssertEqual(methods[layer.index] == method, conv.size == 3 && conv.stride == 1, "layer \(layer.index)")
            }
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
        XCTAssertTrue(network.methods.contains(.winograd) && network.methods.contains(.winogradF2), "\(network.methods)")
        for layer in model.layers where network.methods[layer.index]?.isWinograd == true {
            XCTAssertEqual(prepared[layer.index]?.weights.count, 0)
            XCTAssertEqual(network.parameterBytes[layer.index],
                           model.parameterBytes(ofLayer: layer.index, method: network.methods[layer.index]))
        }
        try assertMatchesIm2col(network, model: model, weights: weights)
    }


    /// The streamed F(2×2) keeps the plain weights (reordered tap-major: as many floats as
    /// darknet's) and computes what im2col does within float rounding.
    func testStreamedHoldsThePlainWeights() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3-tiny"), width: 416, height: 416)
        let bytes = SyntheticWeights.bytes(for: model, seed: 4)
        let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
        let network = try Network(model: model, weights: weights, algorithm: .winogradF2Streamed)
        XCTAssertEqual(network.methods, model.convolutionMethods(.winogradF2Streamed))
        for layer in model.layers where network.methods[layer.index] == .winogradF2Streamed {
            XCTAssertEqual(network.parameterBytes[layer.index], weights[layer.index]?.bytes, "layer \(layer.index)")
            XCTAssertEqual(model.parameterBytes(ofLayer: layer.index, method: .winogradF2Streamed),
                           model.parameterBytes(ofLayer: layer.index, method: .im2col))
        }
        try assertMatchesIm2col(network, model: model, weights: weights)
    }
}

extension XCTestCase {
    /// `network`'s outputs equal im2col's within float rounding (the golden tests bound it against darknet).
    func assertMatchesIm2col(_ network: Network, model: ModelDescription, weights: [Int: ConvolutionWeights]) throws {
        try assertSameOutputs(network, try Network(model: model, weights: weights, algorithm: .im2col), model: model)
    }

    /// Every output of `network` equals `reference`'s within `accuracy` × the output's largest magnitude.
    func assertSameOutputs(_ network: Network, _ reference: Network, model: ModelDescription, accuracy: Float = 1e-4) throws {
        let input = SyntheticWeights.input(model.inputShape)
        for (a, b) in zip(try network.forward(input), try reference.forward(input)) {
            let scale = b.values.map(abs).max() ?? 1
            for i in a.values.indices { XCTAssertEqual(a.values[i], b.values[i], accuracy: accuracy * scale) }
        }
    }
}
