@testable import Darknet
import Kernels
import TestSupport
import XCTest

/// `PreparedModelBuilder`, the one builder of a `PreparedModel`: fed a `ModelWeights` or the
/// weights reader as it walks a file, it gives the same routes, bit for bit, and the parameter
/// bytes and workspace the planner counted, `share_index` layers included.
final class PreparedModelBuilderTests: XCTestCase {
    /// Layer 0 is the source of layers 1 (dilation 2: im2col) and 2 (same shape: Winograd under
    /// the Winograd algorithms, so its source's weights pass through the reader's scratch buffer
    /// and its copy must be kept); layer 3 is 3×3 stride 2 on 64 channels, layer 4 1×1.
    static let cfg = """
        [net]\nwidth=20\nheight=18\nchannels=16
        [convolutional]\nbatch_normalize=1\nfilters=16\nsize=3\nstride=1\npad=1\nactivation=leaky
        [convolutional]\nbatch_normalize=1\nfilters=16\nsize=3\nstride=1\npad=1\ndilation=2\nshare_index=-1\nactivation=leaky
        [convolutional]\nbatch_normalize=1\nfilters=16\nsize=3\nstride=1\npad=1\nshare_index=0\nactivation=leaky
        [convolutional]\nbatch_normalize=1\nfilters=64\nsize=3\nstride=1\npad=1\nactivation=leaky
        [convolutional]\nbatch_normalize=1\nfilters=32\nsize=3\nstride=2\npad=1\nactivation=leaky
        [convolutional]\nfilters=18\nsize=1\nstride=1\npad=0\nactivation=linear
        """

    func testBothWaysInBuildTheSameRoutes() throws {
        let model = try ModelDescription(text: Self.cfg)
        XCTAssertEqual(model.sharedConvolutions, [1: 0, 2: 0])
        let bytes = SyntheticWeights.bytes(for: model, seed: 11)
        let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
        for algorithm in ConvolutionAlgorithm.allCases {
            for packed in [true, false] {
                let options = ExecutionOptions(threads: 2, convolutionAlgorithm: algorithm, usesPackedKernel: packed)
                let label = "\(algorithm), packed \(packed)"
                let planner = ConvolutionPlanner(model: model, options: options)
                let given = try PreparedModel(model: model, weights: weights, options: options)
                let read = try bytes.withUnsafeBytes { try PreparedModel(model: model, weightsBytes: $0, options: options) }
                XCTAssertEqual(given.methods, planner.methods, label)
                XCTAssertEqual(read.methods, planner.methods, label)
                XCTAssertEqual(read.parameterBytes, given.parameterBytes, label)
                for layer in model.layers {
                    let (a, b) = (try XCTUnwrap(read.convolutions[layer.index]), try XCTUnwrap(given.convolutions[layer.index]))
                    XCTAssertEqual(WeightsReaderTests.bits(a), WeightsReaderTests.bits(b), "\(label) layer \(layer.index)")
                    XCTAssertEqual(read.parameterBytes[layer.index],
                                   planner.parameterBytes(ofLayer: layer.index, method: planner.methods[layer.index]),
                                   "\(label) layer \(layer.index)")
                }
                // The shared layers' routes hold their source's parameters in their own layout.
                if given.methods[2] == given.methods[0] {
                    XCTAssertEqual(WeightsReaderTests.bits(try XCTUnwrap(read.convolutions[2])),
                                   WeightsReaderTests.bits(try XCTUnwrap(read.convolutions[0])), label)
                }
                if algorithm == .winograd { XCTAssertEqual(given.methods[2], .winograd, "through the scratch buffer") }
            }
        }
    }

    /// Each layer's workspace, asked with the method planned before any weights existed, is
    /// what it is with the route built, for one image and a batch: the network allocates what
    /// `auto`'s budget counted.
    func testPlannedWorkspaceIsTheBuiltRoutes() throws {
        let model = try ModelDescription(text: Self.cfg)
        let weights = try SyntheticWeights.bytes(for: model, seed: 11).withUnsafeBytes {
            try WeightsReader.read($0, file: "synthetic", for: model)
        }
        for algorithm in ConvolutionAlgorithm.allCases {
            let options = ExecutionOptions(threads: 2, convolutionAlgorithm: algorithm)
            for batch in [1, 3] {
                let planner = ConvolutionPlanner(model: model, options: options, batch: batch)
                let prepared = try PreparedModel(model: model, weights: weights, options: options, batch: batch)
                for layer in model.layers {
                    guard case .convolutional(let conv) = layer.kind else { continue }
                    let count = { (method: ConvolutionMethod?) in
                        PreparedConvolution.workspaceCount(layer, conv, PlanningContext(batch: batch, kernels: options.kernels,
                                                                                        method: method))
                    }
                    XCTAssertEqual(count(planner.methods[layer.index]), count(prepared.methods[layer.index]),
                                   "\(algorithm) batch \(batch) layer \(layer.index)")
                }
                let network = try Network(prepared, batch: batch)
                XCTAssertEqual((network.activationFloats - network.plan.totalFloats) * MemoryLayout<Float>.stride,
                               planner.workspaceBytes(methods: planner.methods), "\(algorithm) batch \(batch)")
            }
        }
    }

    /// A convolution given parameters of another type is a typed error naming it, either way in.
    func testAConvolutionWithoutConvolutionParametersIsAnError() throws {
        let model = try ModelDescription(text: Self.cfg)
        var builder = PreparedModelBuilder(model: model, options: .init(), batch: 1)
        let wrong = LayerWeights.batchnorm(BatchnormWeights(scales: [1], offsets: [0]))
        XCTAssertThrowsError(try builder.add(model.layers[3], wrong)) { error in
            XCTAssertEqual(error as? NetworkError, .missingParameters(layer: 3, type: "convolutional"))
        }
        XCTAssertThrowsError(try builder.build()) { error in
            XCTAssertEqual(error as? NetworkError, .missingParameters(layer: 0, type: "convolutional"))
        }
    }
}
