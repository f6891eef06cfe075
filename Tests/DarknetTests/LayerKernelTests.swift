@testable import Darknet
import TestSupport
import XCTest

/// Runs one small network on a given input with given conv parameters and returns every layer's output.
func runLayers(_ cfg: String, input: [Float], weights: ModelWeights = ModelWeights(), threads: Int = 2) throws -> [[Float]] {
    let model = try ModelDescription(text: cfg)
    let network = try Network(model: model, weights: weights, options: ExecutionOptions(threads: threads))
    var outputs: [[Float]] = []
    try network.forward(input) { _, values in outputs.append(Array(values)) }
    return outputs
}

final class MaxpoolTests: XCTestCase {
    func testDarknetPaddingSemantics() throws {
        // 1×3×3 input; size 2 stride 1 padding 1 (default size-1): output stays 3×3, the
        // window starts at -padding/2 = 0, and the missing bottom-right cells count as −∞.
        let out = try runLayers("[net]\nwidth=3\nheight=3\nchannels=1\n[maxpool]\nsize=2\nstride=1\n",
                                input: [1, -5, 2,
                                        -3, -4, -6,
                                        0, -1, -2])
        XCTAssertEqual(out[0], [1, 2, 2,
                                0, -1, -2,
                                0, -1, -2])
    }

    func testStrideTwoOddInput() throws {
        // 5×5 with size 2 stride 2: darknet's (5 + 1 - 2)/2 + 1 = 3.
        let input = (0..<25).map(Float.init)
        let model = try ModelDescription(text: "[net]\nwidth=5\nheight=5\nchannels=1\n[maxpool]\nsize=2\nstride=2\n")
        XCTAssertEqual(model.layers[0].output, TensorShape(channels: 1, height: 3, width: 3))
        let out = try runLayers("[net]\nwidth=5\nheight=5\nchannels=1\n[maxpool]\nsize=2\nstride=2\n", input: input)
        XCTAssertEqual(out[0], [6, 8, 9, 16, 18, 19, 21, 23, 24])
    }

    /// AlexeyAB's maxpool_depth: 5 channels of 1×2 into out_channels=2: channel 0 is the max of
    /// input channels 0, 2, 4 and channel 1 of channels 1, 3, at each pixel.
    func testMaxpoolDepth() throws {
        let cfg = "[net]\nwidth=2\nheight=1\nchannels=5\n[maxpool]\nmaxpool_depth=1\nout_channels=2\nsize=2\nstride=2\n"
        XCTAssertEqual(try ModelDescription(text: cfg).layers[0].output, TensorShape(channels: 2, height: 1, width: 2))
        let out = try runLayers(cfg, input: [1, -7,   // channel 0
                                             4, -2,   // channel 1
                                             3, -9,   // channel 2
                                             -1, 5,   // channel 3
                                             0, -8])  // channel 4
        XCTAssertEqual(out[0], [3, -7,
                                4, 5])
        let tooMany = "[net]\nwidth=2\nheight=1\nchannels=5\n[maxpool]\nmaxpool_depth=1\nout_channels=6\n"
        XCTAssertThrowsError(try ModelDescription(text: tooMany)) { error in
            guard case .shapeMismatch(let location, _, _)? = error as? CfgError else { return XCTFail("\(error)") }
            XCTAssertEqual(location.key, "out_channels")
        }
    }

    func testSppSizes() throws {
        for size in [5, 9, 13] {
            let model = try ModelDescription(text: "[net]\nwidth=13\nheight=13\nchannels=2\n[maxpool]\nsize=\(size)\nstride=1\n")
            XCTAssertEqual(model.layers[0].output, TensorShape(channels: 2, height: 13, width: 13))
        }
    }

    func testFastMatchesReference() {
        // The fast paths (8 windows at a time for 2×2 at stride 2 or 1, row and column passes for larger windows at stride 1) and channel split against the
        // checked loop, bit for bit, on odd shapes: strides 1–3, padding 0 to 4 (odd padding puts the extra cell bottom-right),
        // width 1, windows larger than the image, and a plane big enough to be split across workers.
        struct Case { var channels, height, width, size, stride, padding: Int }
        var cases: [Case] = [
            Case(channels: 3, height: 5, width: 1, size: 2, stride: 2, padding: 1),
            Case(channels: 2, height: 1, width: 7, size: 3, stride: 1, padding: 2),
            Case(channels: 2, height: 3, width: 2, size: 5, stride: 1, padding: 4),  // window larger than image
            Case(channels: 64, height: 52, width: 52, size: 2, stride: 2, padding: 1),
            // Split across workers, 3×3 windows at stride 2 with border rows and columns on every side.
            Case(channels: 40, height: 27, width: 31, size: 3, stride: 2, padding: 2),
            Case(channels: 3, height: 8, width: 35, size: 2, stride: 2, padding: 0),  // 8-window runs and a tail
            Case(channels: 32, height: 13, width: 13, size: 2, stride: 1, padding: 1),
            Case(channels: 3, height: 6, width: 37, size: 2, stride: 1, padding: 1),  // 2×2/1: 8-window runs and a tail
            Case(channels: 4, height: 13, width: 13, size: 13, stride: 1, padding: 12),
            // The SPP pools (stride 1, "same" padding), column passes 8 wide with tails: 5×5, 9×9, 13×13.
            Case(channels: 3, height: 30, width: 37, size: 5, stride: 1, padding: 4),
            Case(channels: 2, height: 21, width: 41, size: 9, stride: 1, padding: 8),
            Case(channels: 2, height: 26, width: 45, size: 13, stride: 1, padding: 12),
        ]
        for size in 1...4 {
            for stride in 1...3 {
                for padding in 0...4 where 9 + padding >= size {
                    cases.append(Case(channels: 2, height: 9, width: 8, size: size, stride: stride, padding: padding))
                }
            }
        }
        var generator = SplitMix64(state: 11)
        for threads in [1, 2] {
            for c in cases {
                let pool = Maxpool(size: c.size, stride: c.stride, padding: c.padding)
                let inputShape = TensorShape(channels: c.channels, height: c.height, width: c.width)
                guard let outputShape = pool.outputShape(input: inputShape) else { XCTFail("\(c) has no output"); continue }
                // Negative values too, so a skipped out-of-image tap (never 0) would show; some NaNs
                // (skipped by `>`) and signed zeros (the first of equal values is kept: in the odd
                // channels every other value is negative, so a window's max is often a zero).
                let plane = inputShape.height * inputShape.width
                let input = (0..<inputShape.count).map { i -> Float in
                    switch i % 37 {
                    case 5: return .nan
                    case 11: return -0.0
                    case 12: return 0.0
                    default: return i / plane % 2 == 1 ? generator.uniform(-2, -0.5) : generator.uniform(-2, 1)
                    }
                }
                var fast = [Float](repeating: .nan, count: outputShape.count)
                var reference = [Float](repeating: .nan, count: outputShape.count)
                var scratch = [Float](repeating: .nan, count: pool.scratchCount(input: inputShape, output: outputShape, threads: threads))
                input.withUnsafeBufferPointer { i in
                    fast.withUnsafeMutableBufferPointer { o in
                        scratch.withUnsafeMutableBufferPointer {
                            pool.forward(input: i.baseAddress!, inputShape: inputShape, output: o.baseAddress!, outputShape: outputShape,
                                         threads: threads, scratch: $0.baseAddress)
                        }
                    }
                    reference.withUnsafeMutableBufferPointer {
                        pool.forwardReference(input: i.baseAddress!, inputShape: inputShape, output: $0.baseAddress!, outputShape: outputShape)
                    }
                }
                XCTAssertFalse(reference.contains { $0.isNaN }, "\(c)")
                XCTAssertEqual(fast.map(\.bitPattern), reference.map(\.bitPattern), "\(c), \(threads) threads")
            }
        }
    }
}

final class UpsampleTests: XCTestCase {
    func testNearestAndScale() throws {
        let out = try runLayers("[net]\nwidth=2\nheight=1\nchannels=2\n[upsample]\nstride=2\nscale=0.5\n", input: [1, 2, 3, 4])
        XCTAssertEqual(out[0], [0.5, 0.5, 1, 1,
                                0.5, 0.5, 1, 1,
                                1.5, 1.5, 2, 2,
                                1.5, 1.5, 2, 2])
    }

    func testStrideThree() throws {
        let model = try ModelDescription(text: "[net]\nwidth=3\nheight=2\nchannels=1\n[upsample]\nstride=3\n")
        XCTAssertEqual(model.layers[0].output, TensorShape(channels: 1, height: 6, width: 9))
        let out = try runLayers("[net]\nwidth=3\nheight=2\nchannels=1\n[upsample]\nstride=3\n", input: [1, 2, 3, 4, 5, 6])
        XCTAssertEqual(Array(out[0][0..<9]), [1, 1, 1, 2, 2, 2, 3, 3, 3])
        XCTAssertEqual(Array(out[0][45..<54]), [4, 4, 4, 5, 5, 5, 6, 6, 6])
    }
}

final class RouteTests: XCTestCase {
    func testConcatAndIndices() throws {
        let cfg = "[net]\nwidth=2\nheight=2\nchannels=1\n[upsample]\nstride=1\nscale=2\n[upsample]\nstride=1\nscale=3\n[route]\nlayers=-1,0\n[route]\nlayers=1\n"
        let model = try ModelDescription(text: cfg)
        XCTAssertEqual(model.layers[2].output, TensorShape(channels: 2, height: 2, width: 2))
        guard case .route(let route) = model.layers[2].kind else { return XCTFail() }
        XCTAssertEqual(route.sources, [1, 0], "negative indices count back from the route")
        let out = try runLayers(cfg, input: [1, 2, 3, 4])
        XCTAssertEqual(out[2], [6, 12, 18, 24, 2, 4, 6, 8])
        XCTAssertEqual(out[3], [6, 12, 18, 24])
    }
}

final class ShortcutTests: XCTestCase {
    /// Large same-shape shortcuts are split across the workers: every element is still darknet's
    /// `alpha·out + beta·add`, then the activation, on one worker and on two.
    func testLargeShortcutIsTheSameOnOneAndTwoWorkers() {
        let count = 208 * 208 * 3 + 5
        let input = (0..<count).map { Float($0 % 1013) / 37 - 13 }
        let source = (0..<count).map { Float($0 % 997) / 29 - 17 }
        for (alpha, beta) in [(Float(1), Float(1)), (0.5, 2)] {
            let shortcut = Shortcut(source: 0, activation: .leaky, alpha: alpha, beta: beta)
            let expected = (0..<count).map { Activation.leaky.value(alpha == 1 && beta == 1 ? input[$0] + source[$0] : alpha * input[$0] + beta * source[$0]) }
            for threads in [1, 2] {
                var output = [Float](repeating: .nan, count: count)
                output.withUnsafeMutableBufferPointer { out in
                    shortcut.forward(input: input, source: source, output: out.baseAddress!, count: count, threads: threads)
                }
                XCTAssertTrue(zip(output, expected).allSatisfy { $0.bitPattern == $1.bitPattern }, "alpha \(alpha), \(threads) threads")
            }
        }
    }

    func testAddThenActivation() throws {
        let cfg = "[net]\nwidth=2\nheight=1\nchannels=1\n[upsample]\nstride=1\nscale=-2\n[upsample]\nstride=1\nscale=1\n[shortcut]\nfrom=-3\nactivation=leaky\n"
        XCTAssertThrowsError(try ModelDescription(text: cfg), "from=-3 at layer 2 points before layer 0") {
            XCTAssertEqual($0 as? CfgError, .layerReference(CfgLocation(file: "<cfg>", line: 12, section: "shortcut", key: "from"),
                                                            layer: 2, index: -3, available: 2))
        }
        let ok = cfg.replacingOccurrences(of: "from=-3", with: "from=-2")
        let out = try runLayers(ok, input: [1, -3])
        // previous (layer 1) = [-2, 6]; from layer 0 = [-2, 6]; sum = [-4, 12]; leaky → [-0.4, 12]
        XCTAssertEqual(out[2][0], -0.4, accuracy: 1e-6)
        XCTAssertEqual(out[2][1], 12)
    }

    func testAlphaBeta() throws {
        let cfg = "[net]\nwidth=1\nheight=1\nchannels=1\n[upsample]\nstride=1\nscale=3\n[shortcut]\nfrom=-1\nalpha=0.5\nbeta=2\n"
        // shortcut's previous = layer 0 = [3]; from -1 = layer 0 as well: 0.5·3 + 2·3
        XCTAssertEqual(try runLayers(cfg, input: [1])[1], [7.5])
    }

    func testShapeMismatchIsAnError() {
        // layer 0: 1×4×4, layer 1: 1×4×2 (h × w); from layer 0 the width ratio is 2 but the height
        // ratio 1: darknet's shortcut_cpu asserts they agree (other sizes are sampled, ZooLayerTests).
        let cfg = "[net]\nwidth=4\nheight=4\nchannels=1\n[maxpool]\nsize=1\n[maxpool]\nsize=1\nstride_x=2\nstride_y=1\n[shortcut]\nfrom=-2\n"
        XCTAssertThrowsError(try ModelDescription(text: cfg)) { error in
            guard case .shapeMismatch(let location, 2, _)? = error as? CfgError else { return XCTFail("\(error)") }
            XCTAssertEqual(location.key, "from")
        }
    }
}

final class YoloTests: XCTestCase {
    func testLogisticOnXYObjectnessAndClassesOnly() throws {
        // 1 anchor, 1 class: 6 channels of 1×1.
        let cfg = "[net]\nwidth=1\nheight=1\nchannels=6\n[yolo]\nmask=0\nanchors=10,14\nclasses=1\nnum=1\n"
        let input: [Float] = [0, 2, -1, 0.5, -3, 4]
        let out = try runLayers(cfg, input: input)[0]
        func logistic(_ x: Float) -> Float { Float(1 / (1 + exp(-Double(x)))) }
        XCTAssertEqual(out, [logistic(0), logistic(2), -1, 0.5, logistic(-3), logistic(4)])
    }

    /// A head of yolov3-tiny's size (3 anchors × 85 entries, 26×25) on 1, 2 and 3 workers (its
    /// class planes are long enough to be split across them): every element is the scalar
    /// formula's, w and h are untouched, and scale_x_y applies to x and y after the logistic.
    /// `scale_x_y` makes the cfg AlexeyAB's, and the logistic his Float formula.
    func testLargeHeadOnAnyWorkerCountIsTheScalarFormula() throws {
        let (plane, entries) = (26 * 25, 85)
        let input = (0..<3 * entries * plane).map { Float($0 % 3001 - 1500) / 211 }
        for scale in ["", "scale_x_y=1.1\n"] {
            func logistic(_ x: Float) -> Float { scale.isEmpty ? Float(1 / (1 + exp(-Double(x)))) : 1 / (1 + expf(-x)) }
            let cfg = "[net]\nwidth=25\nheight=26\nchannels=255\n[yolo]\nmask=0,1,2\nanchors=1,2,3,4,5,6\nclasses=80\nnum=3\n" + scale
            var expected = input
            for i in expected.indices {
                let entry = i / plane % entries
                if entry == 2 || entry == 3 { continue }
                expected[i] = logistic(input[i])
                if entry < 2 && !scale.isEmpty { expected[i] = expected[i] * 1.1 + -0.5 * (1.1 - 1) }
            }
            for threads in [1, 2, 3] {
                let out = try runLayers(cfg, input: input, threads: threads)[0]
                XCTAssertTrue(zip(out, expected).allSatisfy { $0.bitPattern == $1.bitPattern }, "\(threads) workers, '\(scale)'")
            }
        }
    }

    func testDefaultsAndAnchors() throws {
        let model = try ModelDescription(text: "[net]\nwidth=1\nheight=1\nchannels=21\n[yolo]\nnum=3\nclasses=2\nanchors=1,2,3\n")
        guard case .yolo(let yolo) = model.layers[0].kind else { return XCTFail() }
        XCTAssertEqual(yolo.head.mask, [0, 1, 2], "without mask darknet uses every anchor")
        XCTAssertEqual(yolo.head.anchors, [1, 2, 3, 0.5, 0.5, 0.5], "missing anchors stay at darknet's 0.5")
    }
}
