@testable import Darknet
import Foundation
import TestSupport
import XCTest

/// The layer options of issue #6 (route groups, shortcut of another shape, negative upsample
/// stride, scale_x_y, rejected convolution options). Each test says which reference produced
/// its expected values.
final class ZooLayerTests: XCTestCase {
    /// Runs a one-layer-after-input cfg on `input` and returns the last layer's output.
    private func run(_ cfg: String, _ input: [Float], weights: ModelWeights = ModelWeights()) throws -> [Float] {
        let model = try ModelDescription(text: cfg)
        var result: [Float] = []
        try Network(model: model, weights: weights).forward(input) { layer, values in
            if layer.index == model.layers.count - 1 { result = Array(values) }
        }
        return result
    }

    /// Reference: Debian's libdarknet.so (`tools/regen-goldens`, `fixture_cfg zoo2-pjreddie`):
    /// every layer of Fixtures/zoo2-pjreddie.cfg (shortcuts from a larger and a smaller layer,
    /// `stride=-2` upsample with scale, elu/plse/tanh/lhtan/selu/ramp/stair/relie/hardtan/loggy)
    /// with seed-1 synthetic weights. Tolerance 1e-4·(1 + std), as the other network goldens.
    func testPjreddieOptionsMatchLibdarknet() throws {
        let golden = try LayerGolden.load(try TestData.fixture("zoo2-pjreddie-32-synthetic.json"))
        let model = try ModelDescription(contentsOf: try TestData.fixture("zoo2-pjreddie.cfg").path)
        let bytes = SyntheticWeights.bytes(for: model, seed: 1)
        XCTAssertEqual(String(SyntheticWeights.fnv1a64(bytes), radix: 16).leftPadded(to: 16), golden.syntheticWeights?.fnv1a64)
        let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
        for algorithm in ConvolutionAlgorithm.allCases {
            try assertMatchesGolden(Network(model: model, weights: weights, options: ExecutionOptions(convolutionAlgorithm: algorithm)), golden, tolerance: 1e-4)
        }
    }

    /// Reference: Debian's libdarknet.so (`fixture_cfg zoo5-crop`): pjreddie's `[crop]` at
    /// inference — a centred window mapped to 2x − 1, then one with `noadjust=1` — with a
    /// convolution and a classifier head around it, every layer within 1e-4·(1 + std); and
    /// vgg-16.cfg and strided.cfg, which use it, parse with darknet's shapes.
    func testCropMatchesLibdarknet() throws {
        let golden = try LayerGolden.load(try TestData.fixture("zoo5-crop-20-synthetic.json"))
        let model = try ModelDescription(contentsOf: try TestData.fixture("zoo5-crop.cfg").path)
        XCTAssertEqual(model.layers[0].output, TensorShape(channels: 3, height: 13, width: 10))
        let bytes = SyntheticWeights.bytes(for: model, seed: 1)
        XCTAssertEqual(String(SyntheticWeights.fnv1a64(bytes), radix: 16).leftPadded(to: 16), golden.syntheticWeights?.fnv1a64)
        let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
        try assertMatchesGolden(Network(model: model, weights: weights), golden, tolerance: 1e-4)
        for name in ["vgg-16", "strided"] {
            let cfg = try ModelDescription(contentsOf: try TestData.cfg(name))
            XCTAssertEqual(cfg.layers[0].output, TensorShape(channels: 3, height: 224, width: 224), name)
            XCTAssertEqual(cfg.layers.last?.output, TensorShape(channels: 1000, height: 1, width: 1), name)
        }
        XCTAssertThrowsError(try ModelDescription(text: "[net]\nwidth=8\nheight=8\nchannels=3\n[crop]\ncrop_height=9\ncrop_width=4\n")) { error in
            guard case .inputTooSmall? = error as? CfgError else { return XCTFail("\(error)") }
        }
    }

    /// Reference: Debian's libdarknet.so (`fixture_cfg zoo5-local`): pjreddie's `[local]` with
    /// `pad=1` (size 3) and `pad=0` (size 2, stride 2) between convolutions, every layer within
    /// 1e-4·(1 + std); the weights file's per-location blocks and per-output biases (synthetic
    /// spec v1's `[local]` rule, the same bytes as the oracle's). `pad=1` with another size is
    /// a typed error.
    func testLocalMatchesLibdarknet() throws {
        let golden = try LayerGolden.load(try TestData.fixture("zoo5-local-12-synthetic.json"))
        let model = try ModelDescription(contentsOf: try TestData.fixture("zoo5-local.cfg").path)
        XCTAssertEqual(model.layers[2].output, TensorShape(channels: 6, height: 6, width: 6))
        XCTAssertEqual(model.layers[3].output, TensorShape(channels: 5, height: 3, width: 3))
        let bytes = SyntheticWeights.bytes(for: model, seed: 1)
        XCTAssertEqual(bytes.count, golden.syntheticWeights?.bytes)
        XCTAssertEqual(String(SyntheticWeights.fnv1a64(bytes), radix: 16).leftPadded(to: 16), golden.syntheticWeights?.fnv1a64)
        let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
        try assertMatchesGolden(Network(model: model, weights: weights), golden, tolerance: 1e-4)
        XCTAssertThrowsError(try ModelDescription(text: "[net]\nwidth=8\nheight=8\nchannels=3\n[local]\nsize=5\npad=1\n")) { error in
            guard case .unsupported(let location, _)? = error as? CfgError else { return XCTFail("\(error)") }
            XCTAssertEqual(location.key, "pad")
        }
    }

    /// Reference: AlexeyAB's `forward_route_layer` by hand: groups=2 group_id=1 takes the second
    /// half of each source's channels (yolov4-tiny's CSP split).
    func testRouteGroupsTakeOneChannelBlock() throws {
        let cfg = "[net]\nwidth=1\nheight=2\nchannels=4\n[maxpool]\nsize=1\nstride=1\n[route]\nlayers=-1\n[route]\nlayers=-1,-2\ngroups=2\ngroup_id=1\n"
        let model = try ModelDescription(text: cfg)
        XCTAssertEqual(model.layers[2].output, TensorShape(channels: 4, height: 2, width: 1))
        // layer 0 (a 1×1 maxpool) copies the input (c0: 0,1  c1: 2,3  c2: 4,5  c3: 6,7); each source gives c2, c3.
        XCTAssertEqual(try run(cfg, (0..<8).map(Float.init)), [4, 5, 6, 7, 4, 5, 6, 7])
        XCTAssertThrowsError(try ModelDescription(text: "[net]\nwidth=1\nheight=1\nchannels=4\n[maxpool]\nsize=1\n[route]\nlayers=-1\ngroups=2\ngroup_id=2\n")) {
            XCTAssertEqual($0 as? CfgError, .invalidValue(CfgLocation(file: "<cfg>", line: 10, section: "route", key: "group_id"),
                                                          value: "2", expected: "0...1 (groups=2)"))
        }
        XCTAssertThrowsError(try ModelDescription(text: "[net]\nwidth=1\nheight=1\nchannels=3\n[maxpool]\nsize=1\n[route]\nlayers=-1\ngroups=2\n")) {
            XCTAssertEqual($0 as? CfgError, .shapeMismatch(CfgLocation(file: "<cfg>", line: 9, section: "route", key: "groups"), layer: 1,
                                                           detail: "layer 0 has 3 channels, which groups=2 does not divide"),
                           "3 channels do not split in 2 groups")
        }
    }

    /// Reference: darknet's reverse `upsample_cpu` by hand: each output is scale · the sum of its 2×2 block.
    func testNegativeStrideSumsBlocks() throws {
        let cfg = "[net]\nwidth=4\nheight=2\nchannels=1\n[upsample]\nstride=-2\nscale=0.5\n"
        // rows [0 1 2 3], [4 5 6 7] → blocks {0,1,4,5} = 10, {2,3,6,7} = 18, times 0.5.
        XCTAssertEqual(try run(cfg, (0..<8).map(Float.init)), [5, 9])
        XCTAssertThrowsError(try ModelDescription(text: "[net]\nwidth=5\nheight=4\nchannels=1\n[upsample]\nstride=-2\n")) { error in
            guard case CfgError.shapeMismatch(let location, _, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(location.line, 6)
        }
    }

    /// Reference: pjreddie's `shortcut_cpu` by hand (also covered by the libdarknet golden above):
    /// a 1×2×2 `from` (layer 0, a copy of the input) added into a 2×4×4 layer with sample 2 touches channel 0 at even (y, x) only.
    func testShortcutFromSmallerLayerSamples() throws {
        let cfg = "[net]\nwidth=2\nheight=2\nchannels=1\n[maxpool]\nsize=1\nstride=1\n[upsample]\nstride=2\n[upsample]\nstride=1\n[route]\nlayers=-1,-2\n[shortcut]\nfrom=0\nbeta=10\n"
        let out = try run(cfg, [1, 2, 3, 4])
        XCTAssertEqual(out.count, 32)
        // channel 0 of the route = upsampled input; positions (0,0),(0,2),(2,0),(2,2) get + 10·from.
        XCTAssertEqual(Array(out[0..<4]), [11, 1, 22, 2])
        XCTAssertEqual(Array(out[8..<12]), [33, 3, 44, 4])
        XCTAssertEqual(Array(out[16..<20]), [1, 1, 2, 2], "channel 1 is past min(C1, C2) = 1: unchanged")
    }

    /// Reference: AlexeyAB's `forward_yolo_layer`: x, y = s·logistic − (s − 1)/2; w, h raw.
    func testScaleXY() throws {
        let cfg = "[net]\nwidth=1\nheight=1\nchannels=6\n[yolo]\nclasses=1\nnum=1\nmask=0\nanchors=1,1\nscale_x_y=1.2\n"
        let out = try run(cfg, [0, 2, 0.5, -0.5, 0, 1])
        let logistic: (Float) -> Float = { 1 / (1 + exp(-$0)) }
        XCTAssertEqual(out[0], 0.5, accuracy: 1e-6)  // 1.2 · 0.5 − 0.1
        XCTAssertEqual(out[1], 1.2 * logistic(2) - 0.1, accuracy: 1e-6)
        XCTAssertEqual(Array(out[2...3]), [0.5, -0.5])
        XCTAssertEqual(out[5], logistic(1), accuracy: 1e-6)
    }

    /// AlexeyAB's `share_index`: a later convolution of the same shape runs on the earlier one's
    /// folded weights (none of its own in the file), with its own dilation; a source of another
    /// shape, or one not before it, is an error at the key's line.
    func testShareIndexUsesTheEarlierLayersWeights() throws {
        let net = "[net]\nwidth=6\nheight=6\nchannels=2\n"
        let conv = "[convolutional]\nfilters=2\nsize=3\npad=1\nbatch_normalize=1\nactivation=leaky\n"
        let model = try ModelDescription(text: net + conv + conv + "dilation=2\nshare_index=-1\n" + conv + "share_index=0\n")
        XCTAssertEqual(model.sharedConvolutions, [1: 0, 2: 0])
        XCTAssertEqual(WeightsReader.parameterBytes(for: model), (2 * 4 + 2 * 2 * 9) * 4, "one layer's parameters in the file")
        let bytes = SyntheticWeights.bytes(for: model, seed: 3)
        let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "w", for: model) }
        guard case .convolution(let first) = weights[0], case .convolution(let second) = weights[2] else { return XCTFail() }
        XCTAssertEqual(first.weights, second.weights)
        XCTAssertEqual(first.biases, second.biases)
        // Layer 2 (same geometry as 0, on layer 1's output) equals layer 0 run on that output.
        let network = try bytes.withUnsafeBytes { try Network(PreparedModel(model: model, weightsBytes: $0)) }
        let input = SyntheticWeights.input(model.inputShape)
        var outputs: [[Float]] = []
        _ = try network.forward(input) { _, values in outputs.append(Array(values)) }
        let single = try ModelDescription(text: net + "mosaic=1\n" + conv)  // AlexeyAB's dialect too: the same batch-norm folding
        XCTAssertEqual(single.dialect.dialect, model.dialect.dialect)
        let singleBytes = Array(bytes.prefix(20 + WeightsReader.parameterBytes(for: single)))
        let alone = try singleBytes.withUnsafeBytes { try Network(PreparedModel(model: single, weightsBytes: $0)) }
        XCTAssertEqual(try alone.forward(outputs[1])[0].values, outputs[2])
        for (body, line) in [("size=3\nshare_index=1\n", 14), ("size=1\nshare_index=0\n", 14)] {
            XCTAssertThrowsError(try ModelDescription(text: net + conv + "[convolutional]\nfilters=2\n" + body)) { error in
                XCTAssertEqual((error as? CfgError)?.location?.key, "share_index", body)
                XCTAssertEqual((error as? CfgError)?.location?.line, line, body)
            }
        }
    }

    /// Options AlexeyAB's convolution has and this engine does not: a typed error naming the key and line.
    func testUnhonouredConvolutionOptionsAreErrors() throws {
        for (key, value) in [("antialiasing", "1"), ("assisted_excitation", "4000"), ("deform", "1"),
                             ("binary", "1"), ("flipped", "1"), ("sway", "1"), ("dot", "0.1")] {
            let cfg = "[net]\nwidth=8\nheight=8\nchannels=1\n[convolutional]\nfilters=2\nsize=3\n\(key)=\(value)\n"
            XCTAssertThrowsError(try ModelDescription(text: cfg), key) { error in
                guard case CfgError.unsupported(let location, _) = error else { return XCTFail("\(key): \(error)") }
                XCTAssertEqual(location.line, 8, key)
                XCTAssertEqual(location.key, key)
            }
        }
        XCTAssertNoThrow(try ModelDescription(text: "[net]\nwidth=8\nheight=8\nchannels=1\n[convolutional]\nfilters=2\nsize=3\nantialiasing=0\n"),
                         "the default value is accepted")
        // XNOR runs (XnorConvolution), but not with what AlexeyAB's bit path cannot do.
        let xnor = "[net]\nwidth=8\nheight=8\nchannels=1\n[convolutional]\nfilters=2\nsize=3\nxnor=1\n"
        XCTAssertNoThrow(try ModelDescription(text: xnor))
        XCTAssertThrowsError(try ModelDescription(text: xnor + "dilation=2\npad=1\n")) { error in
            guard case CfgError.unsupported(let location, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(location.line, 8)
            XCTAssertEqual(location.key, "xnor")
        }
    }

    /// AlexeyAB's parse_yolo: nms_kind default → do_nms_sort (IoU), greedynms → diounms_sort by
    /// DIoU with the exponent 0.6, diounms → by DIoU with beta_nms (default 0.6); any other name
    /// (cornersnms included, which only [Gaussian_yolo] reads) is default for him, a warning
    /// naming the line here. Detector uses the last head's.
    func testNmsKindReachesTheDetector() throws {
        func model(_ extra: String) throws -> ModelDescription {
            try ModelDescription(text: "[net]\nwidth=1\nheight=1\nchannels=6\n[yolo]\nclasses=1\nnum=1\n\(extra)")
        }
        XCTAssertEqual(try model("").nmsKind.kind, .default)
        XCTAssertEqual(try model("nms_kind=greedynms\nbeta_nms=0.6\n").nmsKind.kind, .greedy)
        XCTAssertEqual(try model("nms_kind=greedynms\n").nmsKind.kind.mode, .greedyDIoU)
        XCTAssertEqual(try model("nms_kind=diounms\n").nmsKind.kind, .diou(beta: 0.6))
        XCTAssertEqual(try model("nms_kind=diounms\nbeta_nms=0.45\n").nmsKind.kind, .diou(beta: 0.45))
        let corners = try model("nms_kind=cornersnms\n")
        XCTAssertEqual(corners.nmsKind.kind, .default)
        XCTAssertEqual(corners.warnings.map(\.location.line), [8])
        XCTAssertTrue(corners.warnings[0].message.contains("darknet uses default (IoU) NMS"), corners.warnings[0].message)
        // The last head decides: a diounms [yolo] after a default one.
        let two = try ModelDescription(text: "[net]\nwidth=1\nheight=1\nchannels=6\n[yolo]\nclasses=1\nnum=1\n"
                                       + "[route]\nlayers=-1\n[yolo]\nclasses=1\nnum=1\nnms_kind=diounms\nbeta_nms=0.3\n")
        XCTAssertEqual(two.nmsKind.kind, .diou(beta: 0.3))
        XCTAssertEqual(two.nmsKind.reason, "nms_kind of the last [yolo] (layer 2, line 10)")
        // [Gaussian_yolo] reads cornersnms (IoU, as do_nms_sort).
        let gaussian = try ModelDescription(text: "[net]\nwidth=1\nheight=1\nchannels=10\n[Gaussian_yolo]\nclasses=1\nnum=1\nnms_kind=cornersnms\n")
        XCTAssertEqual(gaussian.nmsKind.kind, .corners)
        XCTAssertEqual(gaussian.nmsKind.kind.mode, .perClass)
        XCTAssertTrue(gaussian.warnings.isEmpty, "\(gaussian.warnings)")
    }

    /// Reference: AlexeyAB's forward_scale_channels_layer by hand (OpenCV's importer does not
    /// read scale_wh): with scale_wh=1 the previous 1×H×W plane scales every channel of `from`.
    func testScaleChannelsScaleWH() throws {
        // layer 0: 1×1 maxpool copies the 2×1×2 input; layer 1: route group 0 of 2 → its channel 0 (1×1×2).
        let cfg = "[net]\nwidth=2\nheight=1\nchannels=2\n[maxpool]\nsize=1\nstride=1\n[route]\nlayers=-1\ngroups=2\ngroup_id=0\n[scale_channels]\nfrom=0\nscale_wh=1\n"
        // input c0 = [2, 3], c1 = [5, 7]; out[c][x] = c0[x] · in[c][x] = [4, 9, 10, 21].
        XCTAssertEqual(try run(cfg, [2, 3, 5, 7]), [4, 9, 10, 21])
        let sam = "[net]\nwidth=2\nheight=1\nchannels=1\n[maxpool]\nsize=1\nstride=1\n[maxpool]\nsize=1\nstride=1\n[sam]\nfrom=0\nactivation=relu\n"
        XCTAssertEqual(try run(sam, [-2, 3]), [4, 9], "sam: previous · from, then the activation")
    }

    /// Reference: AlexeyAB's forward_maxpool_layer by hand (OpenCV's importer ignores stride_x/y):
    /// 4×4 input v = 4y + x, size 2, stride_x 2, stride_y 1, padding 1 → offset 0, output 2 wide × 4 high,
    /// out[oy][ox] = v at (min(oy + 1, 3), 2·ox + 1).
    func testMaxpoolStrideXY() throws {
        let cfg = "[net]\nwidth=4\nheight=4\nchannels=1\n[maxpool]\nsize=2\nstride_x=2\nstride_y=1\n"
        XCTAssertEqual(try ModelDescription(text: cfg).layers[0].output, TensorShape(channels: 1, height: 4, width: 2))
        XCTAssertEqual(try run(cfg, (0..<16).map(Float.init)), [5, 7, 9, 11, 13, 15, 13, 15])
        // The fast path (unchecked interior) equals the bounds-checked reference with uneven strides.
        let pool = Maxpool(size: 3, stride: 2, padding: 2, strideY: 3)
        let input = TensorShape(channels: 3, height: 11, width: 9)
        guard let output = pool.outputShape(input: input) else { return XCTFail() }
        let values = (0..<input.count).map { Float(($0 * 7919) % 101) - 50 }
        var fast = [Float](repeating: 0, count: output.count), reference = fast
        values.withUnsafeBufferPointer { x in
            fast.withUnsafeMutableBufferPointer { pool.forward(input: x.baseAddress!, inputShape: input, output: $0.baseAddress!, outputShape: output, threads: 2) }
            reference.withUnsafeMutableBufferPointer { pool.forwardReference(input: x.baseAddress!, inputShape: input, output: $0.baseAddress!, outputShape: output) }
        }
        XCTAssertEqual(fast, reference)
    }
}
