@testable import Darknet
import Kernels
import TestSupport
import XCTest

/// Every route (`PreparedConvolution`) against the naive convolution, on odd shapes, in
/// blocks and in bands, alone and in a batch; and the routes' bits on any worker count.
final class PreparedConvolutionTests: XCTestCase {
    struct Case {
        var channels, height, width, filters, size, stride, pad, groups: Int
        /// AlexeyAB's `stride_y` (nil: `stride`) and `dilation` (with `pad = size/2`, as he requires).
        var strideY: Int? = nil
        var dilation = 1
        /// AlexeyAB's `xnor=1`.
        var xnor = false
    }

    static let cases: [Case] = [
        Case(channels: 3, height: 7, width: 5, filters: 4, size: 1, stride: 1, pad: 0, groups: 1),   // pointwise: no im2col
        Case(channels: 3, height: 9, width: 11, filters: 8, size: 3, stride: 1, pad: 1, groups: 1),  // Winograd-eligible
        Case(channels: 4, height: 9, width: 7, filters: 6, size: 3, stride: 2, pad: 1, groups: 1),   // stride 2, odd sizes
        Case(channels: 2, height: 1, width: 1, filters: 3, size: 1, stride: 1, pad: 0, groups: 1),   // 1×1 image
        Case(channels: 6, height: 8, width: 8, filters: 4, size: 3, stride: 1, pad: 1, groups: 2),   // groups
        Case(channels: 4, height: 5, width: 6, filters: 4, size: 3, stride: 1, pad: 1, groups: 4),   // depthwise
        Case(channels: 3, height: 10, width: 10, filters: 2, size: 5, stride: 3, pad: 0, groups: 1), // no padding, stride 3
        Case(channels: 2, height: 6, width: 4, filters: 3, size: 2, stride: 2, pad: 0, groups: 1),   // even kernel
        Case(channels: 2, height: 3, width: 3, filters: 3, size: 5, stride: 1, pad: 2, groups: 1),   // kernel larger than image
        Case(channels: 3, height: 6, width: 6, filters: 4, size: 1, stride: 2, pad: 0, groups: 1),   // 1×1 stride 2: im2col
        Case(channels: 3, height: 9, width: 11, filters: 4, size: 3, stride: 1, pad: 1, groups: 1, dilation: 2),
        Case(channels: 4, height: 13, width: 7, filters: 4, size: 5, stride: 2, pad: 2, groups: 2, dilation: 3),
        Case(channels: 3, height: 9, width: 10, filters: 5, size: 3, stride: 2, pad: 1, groups: 1, strideY: 1),
        Case(channels: 2, height: 11, width: 6, filters: 3, size: 1, stride: 1, pad: 0, groups: 1, strideY: 2), // 1×1 stride_y 2
        Case(channels: 8, height: 15, width: 19, filters: 6, size: 3, stride: 1, pad: 1, groups: 1),  // k = 72: bands (packed without the direct kernel: a last block of columns under 32)
        Case(channels: 64, height: 9, width: 13, filters: 5, size: 3, stride: 2, pad: 1, groups: 1),  // k = 576: two K blocks
        Case(channels: 5, height: 45, width: 47, filters: 131, size: 1, stride: 1, pad: 0, groups: 1), // direct kernel, many filters
    ]

    /// The f32 methods (`int8` needs a calibration: `Int8ConvolutionTests` checks it).
    static let floatMethods = ConvolutionMethod.allCases.filter { $0 != .int8 }

    /// Every method that can run each case (im2col everywhere; Winograd where eligible), with
    /// the packed kernel (and with it alone, without OpenBLAS's direct kernel) and without.
    func testEveryRouteMatchesTheReference() throws {
        for (packed, direct) in [(true, true), (true, false), (false, false)] {
            var options = ExecutionOptions(threads: 2, usesPackedKernel: packed)
            options.usesDirectKernel = direct
            try check(options, methods: Self.floatMethods)
        }
    }

    /// The same with the im2col matrix unfolded a few output rows or images at a time, and
    /// Winograd in passes of one tile row.
    func testBlockedRoutesMatchTheReference() throws {
        for floats in [1, 100, 250] {
            var blocking = Blocking()
            (blocking.im2colFloats, blocking.winogradFloats) = (floats, floats)
            try check(ExecutionOptions(threads: 2, blocking: blocking),
                      methods: [.im2col, .winograd, .winogradStreamed, .winogradStride2])
        }
    }

    /// The same with every im2col convolution run band by band on the workers (`Im2colBands`),
    /// bands of one output row and of a few (with a shorter last band).
    func testBandsMatchTheReference() throws {
        for floats in [1, 100, 250] {
            var blocking = Blocking()
            (blocking.bandFloats, blocking.bandMinimumColumns) = (floats, 1)
            try check(ExecutionOptions(threads: 2, blocking: blocking), methods: [.im2col])
        }
    }

    /// Which 1×1 layers the direct kernel takes: up to 128 channels, and more than 128 filters
    /// only on grids of `directWideGrid` pixels (yolov7-tiny's 52×52 head, not a 26×26 one).
    func testDirectKernelIsForFewChannels() {
        func direct(_ channels: Int, _ filters: Int, _ side: Int) -> Bool {
            PointwiseConvolution.runsDirect(ConvolutionGeometry(channels: channels, height: side, width: side, filters: filters,
                                                                outHeight: side, outWidth: side, size: 1, strideX: 1,
                                                                strideY: 1, pad: 0))
        }
        XCTAssertTrue(direct(128, 64, 104))
        XCTAssertTrue(direct(128, 128, 13))
        XCTAssertTrue(direct(128, 255, 52))
        XCTAssertTrue(direct(5, 131, 46))
        XCTAssertFalse(direct(128, 255, 26))
        XCTAssertFalse(direct(5, 131, 45))
        XCTAssertFalse(direct(256, 128, 52))
        XCTAssertFalse(direct(129, 32, 104))
    }

    /// Which layers run in bands: short, wide matrices only, and never a single band.
    func testBandsAreForShortWideMatrices() {
        func rows(_ k: Int, _ outHeight: Int, _ outWidth: Int, blocking: Blocking = Blocking()) -> Int? {
            Im2colBands.bandRows(ConvolutionGeometry(channels: k, height: outHeight, width: outWidth, filters: 1,
                                                     outHeight: outHeight, outWidth: outWidth, size: 1, strideX: 1,
                                                     strideY: 1, pad: 0), blocking)
        }
        // yolov3's layer 0 at 416 (k = 27): 23 output rows fit a band, but 12 (4,992 columns)
        // make 35 bands, at least `bandMinimumCount`; both even, so a pool that follows finds
        // whole pairs of rows.
        XCTAssertEqual(rows(27, 416, 416), 12)
        var fitted = Blocking()
        fitted.bandMinimumCount = 1
        XCTAssertEqual(rows(27, 416, 416, blocking: fitted), 22, "as many rows as fit, without the count")
        // Its first two downsampling layers (k = 288, 208 wide; k = 576, 104 wide): 4 rows a band.
        XCTAssertEqual(rows(288, 208, 208), 4)
        XCTAssertEqual(rows(576, 104, 104), 4)
        XCTAssertNil(rows(1152, 52, 52), "the third: bands of 208 columns would be too thin")
        // yolov7-tiny's layer 0 (k = 27, 208×208 out): 46 rows fit, 6 make 35 bands.
        XCTAssertEqual(rows(27, 208, 208), 6)
        // Rows are cut no lower than `bandMinimumColumns` allows (yolov7-tiny's layer 1, k = 288,
        // 104 wide: 4 rows, 26 bands), nor below 2 (a pool's pair of rows).
        XCTAssertEqual(rows(288, 104, 104), 4)
        XCTAssertEqual(rows(27, 40, 600), 2)
        XCTAssertEqual(rows(27, 100, 9000), 1, "one row when only one fits")
        XCTAssertNil(rows(27, 32, 32), "a small image that fits one band")
    }

    /// Each route gives the same bits on 1, 2, 3, 8 and 12 workers (bands of one row at k = 72;
    /// the 1×1 GEMM cut in parts), with OpenBLAS's direct kernel and without it.
    func testEveryRouteGivesTheSameBitsOnAnyWorkerCount() throws {
        var blocking = Blocking()
        (blocking.bandFloats, blocking.bandMinimumColumns) = (27 * 47 * 4, 1)
        for method in Self.floatMethods {
            let c = switch method {
            case .gemm: Case(channels: 64, height: 61, width: 47, filters: 40, size: 1, stride: 1, pad: 0, groups: 1)
            case .winogradStride2: Case(channels: 3, height: 61, width: 47, filters: 8, size: 3, stride: 2, pad: 1, groups: 1)
            // k = 72: bands on the direct kernel, or without it on the packed one (`Im2colBands.packs`).
            case .im2colBands: Case(channels: 8, height: 61, width: 47, filters: 8, size: 3, stride: 1, pad: 1, groups: 1)
            case .xnor: Case(channels: 3, height: 61, width: 47, filters: 8, size: 3, stride: 1, pad: 1, groups: 1, xnor: true)
            default: Case(channels: 3, height: 61, width: 47, filters: 8, size: 3, stride: 1, pad: 1, groups: 1)
            }
            for direct in [true, false] {
                let outputs = try [1, 2, 3, 8, 12].compactMap { threads -> [Float]? in
                    var options = ExecutionOptions(threads: threads, blocking: blocking)
                    options.usesDirectKernel = direct
                    return try run(c, method: method, options: options, activation: .leaky, seed: 7).output
                }
                if outputs.isEmpty && BLAS.packedKernel == nil { continue }  // a route of the packed kernel, which this core lacks
                XCTAssertEqual(outputs.count, 5, "\(method) ran on every worker count")
                guard outputs.count == 5 else { continue }
                XCTAssertFalse(outputs[0].contains { $0.isNaN })
                for (index, output) in outputs.enumerated().dropFirst() {
                    XCTAssertEqual(output.map(\.bitPattern), outputs[0].map(\.bitPattern), "\(method), direct \(direct), run \(index)")
                }
            }
        }
    }

    /// The XNOR route against a direct count of sign agreements (`XnorConvolution`'s rule:
    /// +1 for `> 0`, −1 otherwise and past the border; times the filter's mean |w|, plus the
    /// bias), bit for bit, on odd shapes, one image and a batch.
    func testXnorMatchesItsReference() throws {
        let cases = [
            Case(channels: 3, height: 9, width: 11, filters: 5, size: 3, stride: 1, pad: 1, groups: 1, xnor: true),
            Case(channels: 4, height: 9, width: 7, filters: 6, size: 3, stride: 2, pad: 1, groups: 1, xnor: true),
            Case(channels: 5, height: 6, width: 5, filters: 3, size: 1, stride: 1, pad: 1, groups: 1, xnor: true),  // 1×1 padded
            Case(channels: 2, height: 3, width: 3, filters: 3, size: 5, stride: 1, pad: 2, groups: 1, xnor: true),
        ]
        for (index, c) in cases.enumerated() {
            for images in [1, 2] {
                let options = ExecutionOptions(threads: 2)
                let (output, input, weights) = try run(c, method: .im2col, options: options, images: images, seed: UInt64(index))
                let ours = try XCTUnwrap(output, "an xnor layer runs the xnor route whatever is asked")
                let conv = Self.convolution(c)
                let shape = try XCTUnwrap(conv.outputShape(input: TensorShape(channels: c.channels, height: c.height, width: c.width)))
                let k = c.channels * c.size * c.size
                for b in 0..<images {
                    let image = Self.image(input, b, images: images, channels: c.channels, plane: c.height * c.width)
                    let got = Self.image(ours, b, images: images, channels: c.filters, plane: shape.height * shape.width)
                    for f in 0..<c.filters {
                        let filter = weights.weights[(f * k)..<((f + 1) * k)]
                        let mean = Float(filter.reduce(0.0) { Double(Float($0 + Double(abs($1)))) }) / Float(k)
                        for oy in 0..<shape.height {
                            for ox in 0..<shape.width {
                                var count = 0
                                for ch in 0..<c.channels {
                                    for ky in 0..<c.size {
                                        for kx in 0..<c.size {
                                            let (y, x) = (oy * c.stride + ky - c.pad, ox * c.stride + kx - c.pad)
                                            let inside = y >= 0 && y < c.height && x >= 0 && x < c.width
                                            let xSign = inside && image[(ch * c.height + y) * c.width + x] > 0
                                            let wSign = filter[filter.startIndex + (ch * c.size + ky) * c.size + kx] > 0
                                            count += xSign == wSign ? 1 : -1
                                        }
                                    }
                                }
                                let expected = Float(count) * mean + weights.biases[f]
                                let i = (f * shape.height + oy) * shape.width + ox
                                XCTAssertEqual(got[i], expected, "\(c) image \(b) filter \(f) at \(oy),\(ox)")
                            }
                        }
                    }
                }
            }
        }
    }

    /// Runs `methods` (those the case can run) and compares with the naive convolution + bias,
    /// for one image and a batch of two.
    private func check(_ options: ExecutionOptions, methods: [ConvolutionMethod]) throws {
        for (index, c) in Self.cases.enumerated() {
            for method in methods {
                for images in [1, 2] {
                    let (output, input, weights) = try run(c, method: method, options: options, images: images,
                                                           seed: UInt64(index))
                    guard let output else { continue }
                    let conv = Self.convolution(c)
                    let shape = try XCTUnwrap(conv.outputShape(input: TensorShape(channels: c.channels, height: c.height,
                                                                                  width: c.width)))
                    let plane = shape.height * shape.width
                    for b in 0..<images {
                        let image = Self.image(input, b, images: images, channels: c.channels, plane: c.height * c.width)
                        let reference = ReferenceConvolution.forward(input: image, channels: c.channels, height: c.height,
                                                                     width: c.width, weights: weights.weights, filters: c.filters,
                                                                     size: c.size, stride: c.stride, pad: c.pad, groups: c.groups,
                                                                     strideY: c.strideY, dilation: c.dilation)
                        let ours = Self.image(output, b, images: images, channels: c.filters, plane: plane)
                        for i in 0..<ours.count {
                            XCTAssertEqual(ours[i], reference[i] + weights.biases[i / plane], accuracy: 1e-4,
                                           "\(c) \(method) image \(b) at \(i), \(options.blocking)")
                        }
                    }
                }
            }
        }
    }

    /// Image `b` of a channel-major batch, in CHW.
    static func image(_ batch: [Float], _ b: Int, images: Int, channels: Int, plane: Int) -> [Float] {
        var image: [Float] = []
        for c in 0..<channels {
            let start = (c * images + b) * plane
            image += batch[start..<(start + plane)]
        }
        return image
    }

    static func convolution(_ c: Case) -> Convolutional {
        var conv = Convolutional(filters: c.filters, size: c.size, stride: c.stride, padding: c.pad, groups: c.groups,
                                 batchNormalize: false, activation: .linear, strideY: c.strideY, dilation: c.dilation)
        conv.xnor = c.xnor
        return conv
    }

    /// One forward of `images` random images through `method` (nil output when the case's layer
    /// cannot run it and the route would be another), channel-major.
    private func run(_ c: Case, method: ConvolutionMethod, options: ExecutionOptions, images: Int = 1,
                     activation: Activation = .linear, seed: UInt64)
        throws -> (output: [Float]?, input: [Float], weights: ConvolutionWeights) {
        var conv = Self.convolution(c)
        conv.activation = activation
        let inputShape = TensorShape(channels: c.channels, height: c.height, width: c.width)
        let outputShape = try XCTUnwrap(conv.outputShape(input: inputShape))
        let layer = Layer(index: 0, kind: .convolutional(conv), input: inputShape, output: outputShape,
                          location: CfgLocation(file: "test.cfg", line: 1))
        var generator = SplitMix64(state: seed)
        let input = (0..<(images * inputShape.count)).map { _ in generator.uniform(-1, 1) }
        let count = c.filters * conv.fanIn(inputChannels: c.channels)
        let plain: [Float] = (0..<count).map { _ in generator.uniform(-1, 1) }
        let biases: [Float] = (0..<c.filters).map { _ in generator.uniform(-1, 1) }
        let weights = ConvolutionWeights(weights: plain, biases: biases)
        let prepared = PreparedConvolution(layer, conv, weights: weights, method: method, options: options)
        // The route runs in what its one formula asks for, whether asked with the method planned
        // (here `method`, which the layer may not run) or with the route's own.
        let workspaceCount = { (method: ConvolutionMethod) in
            PreparedConvolution.workspaceCount(layer, conv, PlanningContext(batch: images, kernels: options.kernels, method: method))
        }
        XCTAssertEqual(workspaceCount(method), workspaceCount(prepared.method), "\(c) \(method) → \(prepared.method)")
        let im2col: Set<ConvolutionMethod> = [.im2col, .im2colBands]
        let ran = prepared.method == method || (im2col.contains(method) && im2col.contains(prepared.method)) || c.xnor
        guard ran else { return (nil, input, weights) }
        var output = [Float](repeating: .nan, count: images * outputShape.count)
        var workspace = [Float](repeating: .nan, count: max(1, workspaceCount(prepared.method)))
        var timer: PhaseTimer? = nil
        input.withUnsafeBufferPointer { i in
            output.withUnsafeMutableBufferPointer { o in
                workspace.withUnsafeMutableBufferPointer { w in
                    prepared.route.run(ConvolutionIO(input: i.baseAddress!, output: o.baseAddress!, images: images),
                                       workspace: w.baseAddress!, context: options.kernels, timer: &timer)
                }
            }
        }
        return (output, input, weights)
    }
}
