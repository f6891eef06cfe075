@testable import Darknet
import XCTest

/// The fast path (im2col + OpenBLAS GEMM, pointwise skip) against the naive reference.
final class ConvolutionalTests: XCTestCase {
    struct Case {
        var channels, height, width, filters, size, stride, pad, groups: Int
        /// AlexeyAB's `stride_y` (nil: `stride`) and `dilation` (with `pad = size/2`, as he requires).
        var strideY: Int? = nil
        var dilation = 1
    }

    static let cases: [Case] = [
        Case(channels: 3, height: 7, width: 5, filters: 4, size: 1, stride: 1, pad: 0, groups: 1),   // pointwise: no im2col
        Case(channels: 3, height: 9, width: 11, filters: 5, size: 3, stride: 1, pad: 1, groups: 1),
        Case(channels: 4, height: 9, width: 7, filters: 6, size: 3, stride: 2, pad: 1, groups: 1),   // stride 2, odd sizes
        Case(channels: 2, height: 1, width: 1, filters: 3, size: 1, stride: 1, pad: 0, groups: 1),   // 1×1 image
        Case(channels: 6, height: 8, width: 8, filters: 4, size: 3, stride: 1, pad: 1, groups: 2),   // groups
        Case(channels: 4, height: 5, width: 6, filters: 4, size: 3, stride: 1, pad: 1, groups: 4),   // depthwise
        Case(channels: 3, height: 10, width: 10, filters: 2, size: 5, stride: 3, pad: 0, groups: 1), // no padding, stride 3
        Case(channels: 2, height: 6, width: 4, filters: 3, size: 2, stride: 2, pad: 0, groups: 1),   // even kernel
        Case(channels: 2, height: 3, width: 3, filters: 3, size: 5, stride: 1, pad: 2, groups: 1),   // kernel larger than image
        Case(channels: 3, height: 6, width: 6, filters: 4, size: 1, stride: 2, pad: 0, groups: 1),   // 1×1 stride 2: im2col path
        Case(channels: 3, height: 9, width: 11, filters: 4, size: 3, stride: 1, pad: 1, groups: 1, dilation: 2),
        Case(channels: 4, height: 13, width: 7, filters: 4, size: 5, stride: 2, pad: 2, groups: 2, dilation: 3),
        Case(channels: 3, height: 9, width: 10, filters: 5, size: 3, stride: 2, pad: 1, groups: 1, strideY: 1),
        Case(channels: 2, height: 11, width: 6, filters: 3, size: 1, stride: 1, pad: 0, groups: 1, strideY: 2), // 1×1 stride_y 2
    ]

    func testFastMatchesReference() throws {
        try checkFastMatchesReference()
    }

    /// The same with the im2col matrix unfolded a few output rows at a time (as large images are).
    func testBlockedIm2colMatchesReference() throws {
        let saved = Convolutional.im2colBlockFloats
        defer { Convolutional.im2colBlockFloats = saved }
        for blockFloats in [1, 100, 250] {
            Convolutional.im2colBlockFloats = blockFloats
            try checkFastMatchesReference()
        }
    }

    /// The same with every im2col convolution run band by band on the workers (`Im2colBands`),
    /// bands of one output row and of a few (with a shorter last band).
    func testBandedIm2colMatchesReference() throws {
        let saved = (Im2colBands.bandFloats, Im2colBands.minimumColumns)
        defer { (Im2colBands.bandFloats, Im2colBands.minimumColumns) = saved }
        Im2colBands.minimumColumns = 1
        for bandFloats in [1, 100, 250] {
            Im2colBands.bandFloats = bandFloats
            try checkFastMatchesReference()
        }
    }

    /// Which layers run in bands: short, wide matrices only, and never a single band.
    func testBandsAreForShortWideMatrices() {
        // yolov3's layer 0 at 416 (k = 27): 22 output rows (9,152 columns) per band (23 fit; an
        // even count, so a fused pool finds whole pairs of rows).
        XCTAssertEqual(Im2colBands.bandRows(k: 27, outHeight: 416, outWidth: 416), 22)
        XCTAssertEqual(Im2colBands.workspaceCount(k: 27, outHeight: 416, outWidth: 416), 8 * 27 * 22 * 416)
        // One row when only one fits (k = 27 × 9,000 wide: 1 row of 9,000 columns).
        XCTAssertEqual(Im2colBands.bandRows(k: 27, outHeight: 100, outWidth: 9000), 1)
        // Its first two downsampling layers (k = 288, 208 wide; k = 576, 104 wide): 4 rows a band.
        XCTAssertEqual(Im2colBands.bandRows(k: 288, outHeight: 208, outWidth: 208), 4)
        XCTAssertEqual(Im2colBands.bandRows(k: 576, outHeight: 104, outWidth: 104), 4)
        // The third (k = 1152, 52 wide): bands of 208 columns would be too thin.
        XCTAssertNil(Im2colBands.bandRows(k: 1152, outHeight: 52, outWidth: 52))
        // A small image that fits one band.
        XCTAssertNil(Im2colBands.bandRows(k: 27, outHeight: 32, outWidth: 32))
        let conv = Convolutional(filters: 16, size: 3, stride: 1, padding: 1, groups: 1, batchNormalize: false,
                                 activation: .leaky)
        let input = TensorShape(channels: 3, height: 416, width: 416)
        let output = TensorShape(channels: 16, height: 416, width: 416)
        XCTAssertEqual(conv.workspaceCount(input: input, output: output), 8 * 27 * 22 * 416)
    }

    /// Bands give the same bits on any number of workers: each band is one sgemm of a width
    /// fixed by the shape. A 3 × 61 × 47 image in bands of 4 rows (the last one 1 row), leaky.
    func testBandsGiveTheSameBitsOnAnyWorkerCount() throws {
        let saved = (Im2colBands.bandFloats, Im2colBands.minimumColumns, GEMM.threads)
        defer { (Im2colBands.bandFloats, Im2colBands.minimumColumns, GEMM.threads) = saved }
        (Im2colBands.bandFloats, Im2colBands.minimumColumns) = (27 * 47 * 4, 1)
        let conv = Convolutional(filters: 7, size: 3, stride: 1, padding: 1, groups: 1, batchNormalize: false,
                                 activation: .leaky)
        let inputShape = TensorShape(channels: 3, height: 61, width: 47)
        let outputShape = try XCTUnwrap(conv.outputShape(input: inputShape))
        XCTAssertEqual(Im2colBands.bandRows(k: 27, outHeight: 61, outWidth: 47), 4)
        var generator = SplitMix64(state: 7)
        let input = (0..<inputShape.count).map { _ in generator.uniform(-1, 1) }
        let weights = ConvolutionWeights(weights: (0..<(7 * 27)).map { _ in generator.uniform(-1, 1) },
                                         biases: (0..<7).map { _ in generator.uniform(-1, 1) })
        func run(threads: Int) -> [Float] {
            GEMM.threads = threads
            var output = [Float](repeating: .nan, count: outputShape.count)
            var workspace = [Float](repeating: .nan, count: conv.workspaceCount(input: inputShape, output: outputShape))
            input.withUnsafeBufferPointer { i in
                output.withUnsafeMutableBufferPointer { o in
                    workspace.withUnsafeMutableBufferPointer { w in
                        conv.forward(input: i.baseAddress!, inputShape: inputShape, output: o.baseAddress!,
                                     outputShape: outputShape, weights: weights, workspace: w.baseAddress!)
                    }
                }
            }
            return output
        }
        let one = run(threads: 1)
        XCTAssertFalse(one.contains { $0.isNaN })
        for threads in [2, 3, 8, 12] {
            XCTAssertEqual(run(threads: threads).map(\.bitPattern), one.map(\.bitPattern), "\(threads) workers")
        }
    }

    func checkFastMatchesReference() throws {
        var generator = SplitMix64(state: 42)
        for c in Self.cases {
            let conv = Convolutional(filters: c.filters, size: c.size, stride: c.stride, padding: c.pad, groups: c.groups,
                                     batchNormalize: false, activation: .linear, strideY: c.strideY, dilation: c.dilation)
            let inputShape = TensorShape(channels: c.channels, height: c.height, width: c.width)
            let outputShape = try XCTUnwrap(conv.outputShape(input: inputShape))
            let input = (0..<inputShape.count).map { _ in generator.uniform(-1, 1) }
            let weights = (0..<(c.filters * c.channels / c.groups * c.size * c.size)).map { _ in generator.uniform(-1, 1) }
            let biases = (0..<c.filters).map { _ in generator.uniform(-1, 1) }
            var output = [Float](repeating: .nan, count: outputShape.count)
            var workspace = [Float](repeating: .nan, count: max(1, conv.workspaceCount(input: inputShape, output: outputShape)))
            input.withUnsafeBufferPointer { i in
                output.withUnsafeMutableBufferPointer { o in
                    workspace.withUnsafeMutableBufferPointer { w in
                        conv.forward(input: i.baseAddress!, inputShape: inputShape, output: o.baseAddress!, outputShape: outputShape,
                                     weights: ConvolutionWeights(weights: weights, biases: biases), workspace: w.baseAddress!)
                    }
                }
            }
            let reference = ReferenceConvolution.forward(input: input, channels: c.channels, height: c.height, width: c.width,
                                                         weights: weights, filters: c.filters, size: c.size, stride: c.stride,
                                                         pad: c.pad, groups: c.groups, strideY: c.strideY, dilation: c.dilation)
            let plane = outputShape.height * outputShape.width
            for i in 0..<output.count {
                XCTAssertEqual(output[i], reference[i] + biases[i / plane], accuracy: 1e-4, "\(c) at \(i)")
            }
        }
    }

    /// The reference's dilated geometry, worked by hand: a 5×5 image holding 0…24, a 3×3 kernel
    /// of ones, dilation 2, `pad=1` (a border of 2): output (0, 0) sums the taps at rows and
    /// columns −2, 0, 2 inside the image, 0 + 2 + 10 + 12 = 24; output (2, 2) the taps at 0, 2, 4,
    /// (0 + 2 + 4) + (10 + 12 + 14) + (20 + 22 + 24) = 108.
    func testReferenceDilationByHand() {
        let output = ReferenceConvolution.forward(input: (0..<25).map(Float.init), channels: 1, height: 5, width: 5,
                                                  weights: [Float](repeating: 1, count: 9), filters: 1, size: 3, stride: 1,
                                                  pad: 1, groups: 1, dilation: 2)
        XCTAssertEqual(output.count, 25)
        XCTAssertEqual(output[0], 24)
        XCTAssertEqual(output[2 * 5 + 2], 108)
        // stride_x 2, stride_y 1, no dilation: 5 rows × 3 columns; output (1, 1) centres on pixel (1, 2).
        let anisotropic = ReferenceConvolution.forward(input: (0..<25).map(Float.init), channels: 1, height: 5, width: 5,
                                                       weights: [Float](repeating: 1, count: 9), filters: 1, size: 3,
                                                       stride: 2, pad: 1, groups: 1, strideY: 1)
        XCTAssertEqual(anisotropic.count, 15)
        XCTAssertEqual(anisotropic[1 * 3 + 1], (1 + 2 + 3) + (6 + 7 + 8) + (11 + 12 + 13))
    }

    /// stride_x / stride_y / dilation from the cfg: shapes, and the errors.
    func testStrideXYAndDilationFromTheCfg() throws {
        func parse(_ body: String) throws -> ModelDescription {
            try ModelDescription(text: "[net]\nwidth=20\nheight=12\nchannels=3\n[convolutional]\nfilters=4\nsize=3\npad=1\n" + body)
        }
        let strided = try parse("stride_x=2\nstride_y=1\n")
        XCTAssertEqual(strided.layers[0].output, TensorShape(channels: 4, height: 12, width: 10))
        let dilated = try parse("dilation=2\n")
        XCTAssertEqual(dilated.layers[0].output, TensorShape(channels: 4, height: 12, width: 20))
        guard case .convolutional(let conv) = dilated.layers[0].kind else { return XCTFail("not a convolution") }
        XCTAssertEqual(conv.dilation, 2)
        XCTAssertFalse(conv.winogradEligible)
        for (body, key) in [("stride_x=0\n", "stride_x"), ("dilation=0\n", "dilation")] {
            XCTAssertThrowsError(try parse(body)) { error in
                guard case .invalidValue(let location, _, _)? = error as? CfgError else { return XCTFail("\(body): \(error)") }
                XCTAssertEqual(location.key, key)
            }
        }
        XCTAssertThrowsError(try ModelDescription(text: "[net]\nwidth=9\nheight=9\nchannels=3\n[convolutional]\nfilters=4\nsize=3\npadding=0\ndilation=2\n")) { error in
            guard case .unsupported(let location, _)? = error as? CfgError else { return XCTFail("\(error)") }
            XCTAssertEqual(location.key, "dilation")
        }
    }

    func testFusedEpilogueMatchesTwoPasses() {
        // One fused pass per plane, as the GEMM workers run it on their row segments, against
        // bias-then-activation, bit for bit, for every activation; values straddle 0 so both
        // branches of leaky/relu run.
        var generator = SplitMix64(state: 5)
        for (filters, spatial) in [(3, 7), (1, 1), (64, 52 * 52)] {
            let values = (0..<(filters * spatial)).map { _ in generator.uniform(-3, 3) }
            let biases = (0..<filters).map { _ in generator.uniform(-1, 1) }
            for activation in Activation.allCases {
                var fast = values
                var reference = values
                biases.withUnsafeBufferPointer { b in
                    fast.withUnsafeMutableBufferPointer {
                        for f in 0..<filters {
                            Convolutional.biasActivation($0.baseAddress! + f * spatial, count: spatial, bias: b[f],
                                                         activation: activation)
                        }
                    }
                    reference.withUnsafeMutableBufferPointer {
                        Convolutional.epilogueReference($0.baseAddress!, filters: filters, spatial: spatial, biases: b.baseAddress!, activation: activation)
                    }
                }
                XCTAssertEqual(fast.map(\.bitPattern), reference.map(\.bitPattern), "\(activation) \(filters)×\(spatial)")
            }
        }
    }

    func testShapeInferenceFollowsDarknet() {
        let conv = Convolutional(filters: 8, size: 3, stride: 2, padding: 1, groups: 1, batchNormalize: true, activation: .leaky)
        XCTAssertEqual(conv.outputShape(input: TensorShape(channels: 3, height: 416, width: 416)), TensorShape(channels: 8, height: 208, width: 208))
        XCTAssertEqual(conv.outputShape(input: TensorShape(channels: 3, height: 13, width: 13)), TensorShape(channels: 8, height: 7, width: 7))
        XCTAssertNil(Convolutional(filters: 1, size: 5, stride: 1, padding: 0, groups: 1, batchNormalize: false, activation: .linear)
            .outputShape(input: TensorShape(channels: 1, height: 3, width: 3)))
    }

    func testPadOneMeansHalfTheKernel() throws {
        let model = try ModelDescription(text: "[net]\nwidth=10\nheight=10\nchannels=1\n[convolutional]\nsize=5\npad=1\npadding=7\nfilters=2\n")
        guard case .convolutional(let conv) = model.layers[0].kind else { return XCTFail() }
        XCTAssertEqual(conv.padding, 2, "darknet: if (pad) padding = size/2")
        XCTAssertEqual(conv.activation, .logistic, "darknet's default activation")
    }

    func testBflopsOfAYolov3Layer() {
        // darknet prints 0.299 BFLOPs for yolov3's layer 0 at 416: 2·32·3·9·416·416 / 1e9.
        let conv = Convolutional(filters: 32, size: 3, stride: 1, padding: 1, groups: 1, batchNormalize: true, activation: .leaky)
        let input = TensorShape(channels: 3, height: 416, width: 416)
        XCTAssertEqual(conv.bflops(input: input, output: conv.outputShape(input: input)!), 0.299, accuracy: 0.0005)
    }
}
