import TestSupport
import XCTest
@testable import Darknet
import Imaging

/// A batch of N images gives each image the outputs it gets alone (`Batch.swift`, the batched
/// paths of `Network`, `Convolutional`, `Im2col` and `Winograd`).
final class BatchTests: XCTestCase {
    func testInterleaveIsChannelMajorAndRoundTrips() {
        let shape = TensorShape(channels: 3, height: 2, width: 5)
        let batch = 4
        let images = (0..<(batch * shape.count)).map(Float.init)
        var batched = [Float](repeating: -1, count: images.count)
        var back = [Float](repeating: -1, count: images.count)
        Batch.interleave(images, into: &batched, shape: shape, batch: batch)
        Batch.deinterleave(batched, into: &back, shape: shape, batch: batch)
        XCTAssertEqual(back, images)
        // Image b's channel c, pixel i sits at (c·batch + b)·H·W + i.
        let plane = shape.height * shape.width
        for b in 0..<batch {
            for c in 0..<shape.channels {
                for i in 0..<plane {
                    XCTAssertEqual(batched[(c * batch + b) * plane + i], images[b * shape.count + c * plane + i])
                }
            }
        }
    }

    /// Convolutions of every kind the engine runs (pointwise, 3×3 stride 1 and 2, groups,
    /// odd sizes, 1 channel), with forced tiny im2col and Winograd blocks so the batch is
    /// also split into images and rows, under every algorithm.
    func testConvolutionsOfABatchMatchOneImageAtATime() throws {
        let cfg = """
            [net]
            width=13
            height=11
            channels=3
            [convolutional]
            filters=8
            size=3
            stride=1
            pad=1
            activation=leaky
            [convolutional]
            filters=6
            size=3
            stride=2
            pad=1
            batch_normalize=1
            activation=leaky
            [convolutional]
            filters=4
            size=1
            stride=1
            activation=linear
            [convolutional]
            filters=6
            size=3
            stride=1
            pad=1
            groups=2
            activation=relu
            [convolutional]
            filters=1
            size=3
            stride=1
            pad=0
            activation=logistic
            [convolutional]
            filters=5
            size=3
            stride=1
            pad=1
            activation=mish
            [convolutional]
            filters=4
            size=3
            pad=1
            dilation=2
            activation=leaky
            [convolutional]
            filters=3
            size=3
            stride_x=2
            stride_y=1
            pad=1
            activation=linear
            """
        let standard = Blocking()
        // The last two run every im2col convolution in bands (`Im2colBands`) of 1 row and of a few.
        let settings = [(standard.im2colFloats, standard.winogradFloats, (standard.bandFloats, standard.bandMinimumColumns)),
                        (200, 300, (standard.bandFloats, standard.bandMinimumColumns)), (1, 1, (standard.bandFloats, standard.bandMinimumColumns)),
                        (standard.im2colFloats, standard.winogradFloats, (1, 1)), (standard.im2colFloats, standard.winogradFloats, (300, 1))]
        for (im2colBlock, winogradBlock, bands) in settings {
            var blocking = Blocking()
            (blocking.im2colFloats, blocking.winogradFloats) = (im2colBlock, winogradBlock)
            (blocking.bandFloats, blocking.bandMinimumColumns) = bands
            for algorithm in ConvolutionAlgorithm.allCases {
                for packed in [true, false] {
                    let options = ExecutionOptions(threads: 2, convolutionAlgorithm: algorithm, usesPackedKernel: packed,
                                                   blocking: blocking)
                    try assertBatchMatchesSingles(cfg: cfg, batch: 3, options: options,
                                                  "blocks \(im2colBlock)/\(winogradBlock), bands \(bands), \(algorithm), packed \(packed)")
                }
            }
        }
    }

    /// Random cfgs of convs, maxpools, upsamples, routes (some with groups) and shortcuts.
    func testRandomNetworksOfABatchMatchOneImageAtATime() throws {
        var generator = SplitMix64(state: 21)
        for trial in 0..<15 {
            let cfg = MemoryPlanTests.randomCfg(&generator)
            try assertBatchMatchesSingles(cfg: cfg, batch: 2 + trial % 3, "trial \(trial):\n\(cfg)")
        }
    }

    /// The AlexeyAB fixture (route groups, sam, scale_channels, scale_x_y, mish, swish, two
    /// heads), pjreddie's shortcut between sizes and negative upsample, AlexeyAB's weighted
    /// multi-layer shortcuts, and a classifier
    /// (`[connected]`, `[softmax]`, `[avgpool]`, `[dropout]`, image by image in a batch).
    func testZooNetworksOfABatchMatchOneImageAtATime() throws {
        for name in ["zoo2-v4tiny.cfg", "zoo2-pjreddie.cfg", "zoo5-crop.cfg", "zoo5-newcoords.cfg", "zoo5-local.cfg",
                     "shortcut-weighted.cfg"] {
            let cfg = try String(contentsOf: TestData.fixture(name), encoding: .utf8)
            try assertBatchMatchesSingles(cfg: cfg, batch: 3, name)
        }
        let depth = "[net]\nwidth=9\nheight=7\nchannels=3\n[convolutional]\nfilters=6\nsize=3\npad=1\nactivation=leaky\n"
            + "[maxpool]\nmaxpool_depth=1\nout_channels=2\n[convolutional]\nfilters=4\nsize=1\nactivation=linear\n"
        try assertBatchMatchesSingles(cfg: depth, batch: 3, "maxpool_depth")
        try assertBatchMatchesSingles(cfg: try String(contentsOfFile: TestData.cfg("darknet"), encoding: .utf8),
                                      width: 64, height: 64, batch: 2, "darknet.cfg at 64")
    }

    /// yolov3-tiny at 416 with its real weights on three photos: each image's `[yolo]` outputs
    /// in a batch of 3 are the bits it gets alone.
    func testYolov3TinyBatchOfPhotosMatchesSingles() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3-tiny"))
        let weights = try WeightsReader.read(contentsOf: try TestData.path("yolov3-tiny.weights"), for: model)
        let prepared = try PreparedModel(model: model, weights: weights)
        let detector = try Detector(prepared)
        let images = try ["dog", "person", "horses"].map { try detector.prepare(Image(contentsOf: TestData.path("data/\($0).jpg"))).data }
        let single = try Network(prepared)
        let batched = try Network(prepared, batch: 3)
        let outputs = try batched.forward(batch: images)
        for (b, image) in images.enumerated() {
            let alone = try single.forward(image)
            XCTAssertEqual(outputs[b].map(\.layer), alone.map(\.layer))
            for (ours, expected) in zip(outputs[b], alone) {
                XCTAssertEqual(ours.shape, expected.shape)
                XCTAssertEqual(ours.values.map(\.bitPattern), expected.values.map(\.bitPattern), "image \(b), layer \(ours.layer)")
            }
        }
    }

    /// A layer that needs parameters and has none is an error at init, not a trap in forward.
    func testMissingParametersAreAnError() throws {
        let model = try ModelDescription(text: "[net]\nwidth=4\nheight=4\nchannels=1\n[maxpool]\nsize=2\nstride=2\n[convolutional]\nfilters=2\n")
        XCTAssertThrowsError(try Network(model: model, weights: ModelWeights())) { error in
            XCTAssertEqual(error as? NetworkError, .missingParameters(layer: 1, type: "convolutional"))
        }
    }

    func testBatchErrors() throws {
        let model = try ModelDescription(text: "[net]\nwidth=4\nheight=4\nchannels=1\n[maxpool]\nsize=2\nstride=2\n")
        XCTAssertThrowsError(try Network(model: model, weights: ModelWeights(), batch: 0)) { error in
            XCTAssertEqual(error as? NetworkError, .invalidBatch(0, maximum: Network.maximumBatch))
        }
        let network = try Network(model: model, weights: ModelWeights(), batch: 2)
        XCTAssertThrowsError(try network.forward(batch: [[Float](repeating: 0, count: 16)])) { error in
            XCTAssertEqual(error as? NetworkError, .batchCount(expected: 2, actual: 1))
        }
        XCTAssertThrowsError(try network.forward([Float](repeating: 0, count: 16))) { error in
            XCTAssertEqual(error as? NetworkError, .batchInputSize(batch: 2, expected: model.inputShape, actualCount: 16))
        }
        XCTAssertThrowsError(try network.forward(batch: [[Float](repeating: 0, count: 16), [0]])) { error in
            XCTAssertEqual(error as? NetworkError, .inputSize(expected: model.inputShape, actualCount: 1))
        }
    }

    /// `forwardViews` of a batch keeps the arena and allocates nothing new: the views are
    /// channel-major and hold what `forward` returns image by image.
    func testForwardViewsOfABatchAreChannelMajor() throws {
        let model = try ModelDescription(contentsOf: try TestData.fixture("zoo2-v4tiny.cfg").path)
        let bytes = SyntheticWeights.bytes(for: model, seed: 3)
        let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
        let network = try Network(model: model, weights: weights, batch: 2)
        let images = (0..<2).map { Self.image(model.inputShape, variant: $0) }
        let expected = try network.forward(batch: images)
        let flat = images.flatMap { $0 }
        let views = try flat.withUnsafeBufferPointer { try network.forwardViews($0) }
        let again = try flat.withUnsafeBufferPointer { try network.forwardViews($0) }
        XCTAssertEqual(views.map(\.baseAddress), again.map(\.baseAddress))
        for (k, view) in views.enumerated() {
            let shape = expected[0][k].shape
            var chw = [Float](repeating: 0, count: view.count)
            Batch.deinterleave(view.baseAddress!, into: &chw, shape: shape, batch: 2)
            XCTAssertEqual(Array(chw[..<shape.count]), expected[0][k].values)
            XCTAssertEqual(Array(chw[shape.count...]), expected[1][k].values)
        }
    }

    // MARK: - Helpers

    /// Every layer's output of each image of a batch is the bits it gets alone (the batch's
    /// GEMMs cut each image's columns as if alone, Winograd's products run image by image).
    func assertBatchMatchesSingles(cfg: String, width: Int? = nil, height: Int? = nil, batch: Int,
                                   options: ExecutionOptions = .init(threads: 2), _ name: String,
                                   file: StaticString = #filePath, line: UInt = #line) throws {
        let model = try ModelDescription(text: cfg, width: width, height: height)
        let bytes = SyntheticWeights.bytes(for: model, seed: 7)
        let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
        let prepared = try PreparedModel(model: model, weights: weights, options: options, batch: batch)
        let single = try Network(prepared)
        let batched = try Network(prepared, batch: batch)
        let images = (0..<batch).map { Self.image(model.inputShape, variant: $0) }
        // Every layer, not only the outputs: the observer sees the channel-major batch.
        var batchedLayers: [[Float]] = []
        try batched.forward(images.flatMap { $0 }) { layer, values in
            var chw = [Float](repeating: 0, count: values.count)
            Batch.deinterleave(values.baseAddress!, into: &chw, shape: layer.output, batch: batch)
            batchedLayers.append(chw)
        }
        for (b, image) in images.enumerated() {
            var index = 0
            try single.forward(image) { layer, values in
                let count = layer.output.count
                let ours = Array(batchedLayers[index][(b * count)..<((b + 1) * count)])
                XCTAssertEqual(ours.map(\.bitPattern), values.map(\.bitPattern), "\(name): image \(b), layer \(layer.index)",
                               file: file, line: line)
                index += 1
            }
        }
    }

    /// Image `variant` of a batch: the goldens' synthetic input, shifted so images differ.
    static func image(_ shape: TensorShape, variant: Int) -> [Float] {
        SyntheticWeights.input(shape).enumerated().map { i, x in
            variant == 0 ? x : Float((Int(x * 999) + variant * 377 + i % 7) % 1000) / 999
        }
    }
}
