@testable import Darknet
import Kernels
import TestSupport
import XCTest

/// Which method `ConvolutionPlanner` gives each convolution, with OpenBLAS's
/// packed kernel (streamed Winograd first, then weights transformed at load while twice the
/// parameters allow) and without it (`usesPackedKernel: false`, as on another BLAS), and that
/// what it plans is what `PreparedModel` runs.
final class ConvolutionPlannerTests: XCTestCase {
    static let packed = ExecutionOptions()
    static let plain = ExecutionOptions(usesPackedKernel: false)

    /// What `auto` plans to hold: parameters as chosen, arena, workspace and the process reserve.
    /// The workspace is the one `options` allocates (without the packed kernel, no packed scratch).
    private func plannedBytes(_ model: ModelDescription, _ methods: [ConvolutionMethod?], batch: Int = 1,
                              options: ExecutionOptions = packed) -> Int {
        let planner = ConvolutionPlanner(model: model, options: options, batch: batch)
        return model.layers.indices.reduce(0) { $0 + planner.parameterBytes(ofLayer: $1, method: methods[$1]) }
            + planner.activationBytes + planner.workspaceBytes(methods: methods) + planner.processReserveBytes
    }

    private func planned(_ model: ModelDescription, _ options: ExecutionOptions, batch: Int = 1) -> [ConvolutionMethod?] {
        ConvolutionPlanner(model: model, options: options, batch: batch).methods
    }

    private func isMemoryBound(_ model: ModelDescription, _ options: ExecutionOptions, batch: Int = 1) -> Bool {
        ConvolutionPlanner(model: model, options: options, batch: batch).isMemoryBound
    }

    private func indices(_ model: ModelDescription, _ methods: [ConvolutionMethod?], _ method: ConvolutionMethod) -> [Int] {
        model.layers.map(\.index).filter { methods[$0] == method }
    }

    /// yolov3 at 416 with the packed kernel: every 3×3 layer with 16 channels or more runs
    /// Winograd but layer 1 (stride 2, 32 channels: im2col in bands): the stride-1 ones
    /// streamed, the four other stride-2 ones in the stride-2 Winograd (25/9 of their weights);
    /// then transformed at load, smallest grids first, as many as twice the weights allow: two
    /// of the seven 13×13 layers (56.6 MB more each). A third would not have fitted.
    func testAutoOnYOLOv3At416() throws {
        if PackedGEMM.kernel == nil { throw Skip.because("OpenBLAS's \(BLAS.coreName) kernel is not available here") }
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3"), width: 416, height: 416)
        let methods = planned(model, Self.packed)
        XCTAssertEqual(indices(model, methods, .winograd), [64, 67])
        XCTAssertEqual(indices(model, methods, .winogradStride2), [5, 12, 37, 62])
        XCTAssertEqual(methods.compactMap { $0 }.filter(\.isWinograd).count, 36, "every eligible layer but layer 1")
        XCTAssertEqual(methods[0], .im2colBands, "3 input channels: too thin for Winograd")
        XCTAssertEqual(methods[1], .im2colBands, "stride 2 on 32 channels: bands beat the stride-2 Winograd")
        XCTAssertEqual(methods[2], .gemm, "1×1")
        let limit = 2 * ConvolutionPlanner(model: model).parameterBytes
        XCTAssertLessThanOrEqual(plannedBytes(model, methods), limit)
        var more = methods
        more[70] = .winograd
        XCTAssertGreaterThan(plannedBytes(model, more), limit, "a third 13×13 layer would have fitted")
        XCTAssertTrue(isMemoryBound(model, Self.packed))
        // The model's members forward to the planner; only `auto` is bound by memory.
        XCTAssertEqual(model.convolutionMethods(Self.packed), methods)
        XCTAssertTrue(model.autoIsMemoryBound(ExecutionOptions(convolutionAlgorithm: .im2col)), "auto's answer")
        XCTAssertFalse(isMemoryBound(model, ExecutionOptions(convolutionAlgorithm: .im2col)))
    }

    /// Without the packed kernel nothing streams: the stride-2 layers of 64 channels or more
    /// come first (largest output first), then weights transformed at load on the smallest grids
    /// first as twice the weights allow (two 13×13 layers, then layers 7 and 3, whose few weights
    /// still fit on the 104×104 and 208×208 grids); the other 3×3 layers run im2col.
    func testAutoWithoutThePackedKernel() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3"), width: 416, height: 416)
        let methods = planned(model, Self.plain)
        XCTAssertTrue(indices(model, methods, .winogradStreamed).isEmpty)
        XCTAssertEqual(indices(model, methods, .winogradStride2), [5, 12, 37, 62])
        XCTAssertEqual(indices(model, methods, .winograd), [3, 7, 64, 67])
        XCTAssertLessThanOrEqual(plannedBytes(model, methods, options: Self.plain), 2 * ConvolutionPlanner(model: model).parameterBytes)
        XCTAssertTrue(isMemoryBound(model, Self.plain))
    }

    /// A batch's activations come out of the same budget: four images at 416 leave less for
    /// transformed weights than one (eight images: only the floor), within twice the weights.
    func testAutoPlansForTheBatch() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3"), width: 416, height: 416)
        let parameters = { (methods: [ConvolutionMethod?]) in
            model.layers.indices.reduce(0) { $0 + ConvolutionPlanner(model: model).parameterBytes(ofLayer: $1, method: methods[$1]) }
        }
        let plain = parameters(planned(model, ExecutionOptions(convolutionAlgorithm: .im2col)))
        let extra = { (batch: Int) in parameters(self.planned(model, Self.packed, batch: batch)) - plain }
        XCTAssertGreaterThan(ConvolutionPlanner(model: model, batch: 4).activationBytes, 4 * ConvolutionPlanner(model: model).activationBytes - 4096)
        XCTAssertLessThan(extra(4), extra(1))
        XCTAssertLessThanOrEqual(plannedBytes(model, planned(model, Self.packed, batch: 4), batch: 4),
                                 2 * ConvolutionPlanner(model: model).parameterBytes)
        XCTAssertLessThanOrEqual(extra(8), extra(4))
        XCTAssertLessThanOrEqual(extra(8), ConvolutionPlanner.winogradMemoryFloor)
        XCTAssertTrue(isMemoryBound(model, Self.packed, batch: 8))
    }

    /// yolov3-tiny is a small model (`winogradAllowance`: 4× its 35 MB): every layer with 16
    /// channels or more transformed at load, with or without the packed kernel; not memory-bound.
    func testAutoOnTiny() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3-tiny"), width: 416, height: 416)
        let parameters = ConvolutionPlanner(model: model).parameterBytes
        XCTAssertEqual(ConvolutionPlanner.winogradAllowance(parameters: parameters), 4 * parameters)
        for options in [Self.packed, Self.plain] {
            let methods = planned(model, options)
            XCTAssertEqual(indices(model, methods, .winograd), [2, 4, 6, 8, 10, 12, 14, 21])
            XCTAssertEqual(methods[0], .im2colBands)
            XCTAssertEqual(indices(model, methods, .gemm), [13, 15, 18, 22])
            XCTAssertFalse(isMemoryBound(model, options))
            XCTAssertLessThanOrEqual(plannedBytes(model, methods, options: options), 5 * parameters + ConvolutionPlanner(model: model).processReserveBytes)
        }
    }

    /// Large models keep the 32 MB floor: yolov3's 248 MB of weights.
    func testLargeModelsKeepTheFloor() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3"), width: 416, height: 416)
        XCTAssertEqual(ConvolutionPlanner.winogradAllowance(parameters: ConvolutionPlanner(model: model).parameterBytes),
                       ConvolutionPlanner.winogradMemoryFloor)
    }

    /// Forced algorithms: `winograd` on every 3×3 stride-1 layer, `winograd-streamed` there too
    /// (transformed at load without the packed kernel), `im2col` nowhere. (yolov3-tiny has no
    /// stride-2 convolution; `testStride2LayersRunTheirWinograd` has them.)
    func testForcedMethods() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3-tiny"), width: 416, height: 416)
        XCTAssertFalse(planned(model, ExecutionOptions(convolutionAlgorithm: .im2col)).contains { $0?.isWinograd == true })
        let streamed: ConvolutionMethod = PackedGEMM.kernel == nil ? .winograd : .winogradStreamed
        for (options, method) in [(ExecutionOptions(convolutionAlgorithm: .winograd), ConvolutionMethod.winograd),
                                  (ExecutionOptions(convolutionAlgorithm: .winogradStreamed), streamed),
                                  (ExecutionOptions(convolutionAlgorithm: .winogradStreamed, usesPackedKernel: false), .winograd)] {
            let methods = planned(model, options)
            for layer in model.layers {
                guard case .convolutional(let conv) = layer.kind else { XCTAssertNil(methods[layer.index]); continue }
                XCTAssertEqual(methods[layer.index] == method, conv.winogradEligible, "layer \(layer.index), \(options)")
            }
        }
    }

    /// What is planned is what runs, and each method holds what it says: transformed weights 4×
    /// darknet's, the others darknet's count; every method's outputs are im2col's within rounding.
    func testPreparedModelRunsThePlan() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3-tiny"), width: 416, height: 416)
        let bytes = SyntheticWeights.bytes(for: model, seed: 3)
        let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
        let reference = try Network(model: model, weights: weights, options: ExecutionOptions(convolutionAlgorithm: .im2col))
        for options in [Self.packed, Self.plain, ExecutionOptions(convolutionAlgorithm: .winogradStreamed),
                        ExecutionOptions(convolutionAlgorithm: .winograd, usesPackedKernel: false)] {
            let prepared = try PreparedModel(model: model, weights: weights, options: options)
            XCTAssertEqual(prepared.methods, planned(model, options), "\(options)")
            for layer in model.layers {
                guard let method = prepared.methods[layer.index] else { continue }
                XCTAssertEqual(prepared.parameterBytes[layer.index], ConvolutionPlanner(model: model).parameterBytes(ofLayer: layer.index, method: method),
                               "layer \(layer.index) \(method)")
            }
            // Read straight from the file's bytes, the same plan and parameters.
            let read = try bytes.withUnsafeBytes { try PreparedModel(model: model, weightsBytes: $0, options: options) }
            XCTAssertEqual(read.methods, prepared.methods)
            XCTAssertEqual(read.parameterBytes, prepared.parameterBytes)
            try assertSameOutputs(try Network(prepared), reference, model: model)
        }
    }

    /// 3×3 stride-2 layers take the stride-2 Winograd under forced `winograd`, and under `auto`
    /// those with `stride2WinogradMinimumChannels` input channels or more (layer 2's 64, not
    /// layer 1's 16), never under `im2col`; planned is what runs, 25/9 of darknet's weights, and
    /// the network's outputs are im2col's within rounding (a fixture cfg of two downsampling
    /// steps, one with a residual and a leaky activation, at an odd size).
    func testStride2LayersRunTheirWinograd() throws {
        let cfg = """
        [net]
        width=70
        height=54
        channels=3
        [convolutional]
        filters=16
        size=3
        stride=1
        pad=1
        activation=leaky
        [convolutional]
        batch_normalize=1
        filters=64
        size=3
        stride=2
        pad=1
        activation=leaky
        [convolutional]
        filters=32
        size=3
        stride=2
        pad=1
        activation=linear
        [convolutional]
        filters=32
        size=1
        stride=1
        pad=0
        activation=leaky
        [shortcut]
        from=-2
        activation=linear
        """
        let model = try ModelDescription(text: cfg, file: "stride2.cfg")
        let bytes = SyntheticWeights.bytes(for: model, seed: 5)
        let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
        let reference = try Network(model: model, weights: weights, options: ExecutionOptions(convolutionAlgorithm: .im2col))
        XCTAssertFalse(planned(model, ExecutionOptions(convolutionAlgorithm: .im2col)).contains(.winogradStride2))
        XCTAssertEqual(ConvolutionPlanner.stride2WinogradMinimumChannels, 64)
        for options in [Self.packed, Self.plain, ExecutionOptions(threads: 1, convolutionAlgorithm: .winograd)] {
            let prepared = try PreparedModel(model: model, weights: weights, options: options)
            XCTAssertEqual(prepared.methods, planned(model, options), "\(options)")
            let stride2 = options.convolutionAlgorithm == .auto ? [2] : [1, 2]
            XCTAssertEqual(indices(model, prepared.methods, .winogradStride2), stride2, "\(options)")
            if stride2 == [2] { XCTAssertEqual(prepared.methods[1], .im2col, "16 channels: below the minimum") }
            XCTAssertEqual(prepared.methods[3], .gemm)
            for index in stride2 {
                XCTAssertEqual(prepared.parameterBytes[index], ConvolutionPlanner(model: model).parameterBytes(ofLayer: index, method: .winogradStride2))
                let (filters, channels) = index == 1 ? (64, 16) : (32, 64)
                XCTAssertEqual(prepared.parameterBytes[index], (filters * channels * 25 + filters) * 4, "layer \(index)")
            }
            try assertSameOutputs(try Network(prepared), reference, model: model)
        }
    }
}

extension XCTestCase {
    /// Every output of `network` equals `reference`'s within `accuracy` × the output's largest magnitude.
    func assertSameOutputs(_ network: Network, _ reference: Network, model: ModelDescription, accuracy: Float = 1e-4) throws {
        let input = SyntheticWeights.input(model.inputShape)
        for (a, b) in zip(try network.forward(input), try reference.forward(input)) {
            let scale = b.values.map(abs).max() ?? 1
            for i in a.values.indices { XCTAssertEqual(a.values[i], b.values[i], accuracy: accuracy * scale) }
        }
    }
}
