import Kernels
import Foundation
import YOLO

/// `[region]` (YOLOv2's detection layer), pjreddie's region_layer.c at inference: input =
/// output `num · (coords + 1 + classes) × H × W`, one block of planes per anchor (x, y, w, h,
/// objectness, class scores). `forward_region_layer` copies the input, applies the logistic to
/// x, y and objectness, and a softmax across the class scores of each cell and anchor
/// (blas.c `softmax` with temperature 1 over planes `H·W` apart, from the raw input), or a
/// logistic on each score with `softmax=0`; w and h stay raw. Boxes are decoded by the
/// `YOLO` module (`RegionHead`: anchors in grid cells, get_region_box /
/// correct_region_boxes), not here. In AlexeyAB's dialect the logistic is his Float one.
///
/// With `tree=` (YOLO9000's WordTree, `ClassTree`), the softmax runs across each tree group
/// of a cell's class scores instead, as pjreddie's GPU forward and AlexeyAB's CPU forward do
/// (pjreddie's CPU forward indexes the groups wrongly, pjreddie/darknet#143: it is not
/// copied), and `RegionTreeDecoder` picks the class. `map=` (the 9k→COCO map) only serves
/// darknet's validation; `detector test` passes none, so it is not read.
///
/// parse_region's defaults: coords 4, classes 20, num 1, softmax 0, anchors 0.5 where not
/// listed (make_region_layer). Only `coords=4` is supported; `background`, `log` and `sqrt`
/// are typed errors.
public struct Region: Sendable, Hashable {
    public var head: RegionHead
    /// The cfg's dialect's logistic (`CfgDialect.activation`).
    public var logistic: Activation = .logistic

    static let keys: Set<String> = [
        "coords", "classes", "num", "softmax", "anchors", "log", "sqrt", "background", "max", "jitter", "rescore",
        "thresh", "classfix", "absolute", "random", "coord_scale", "object_scale", "noobject_scale", "mask_scale",
        "class_scale", "bias_match", "tree", "map", "focal_loss", "resize",
    ]
    /// Keys read and honoured; the other `keys` are training-only (ignored) or `rejectedKeys`.
    static let honouredKeys: Set<String> = ["coords", "classes", "num", "softmax", "anchors", "tree"]
    /// Keys that are a typed error (naming key and line) unless darknet's default, with a value that triggers it.
    static let rejectedKeys: [String: String] = ["background": "1", "log": "1", "sqrt": "1"]

    static func parse(_ section: CfgSection, limits: ModelLimits = .init()) throws -> Region {
        let coords = try section.int("coords", default: 4)
        if coords != 4 {
            throw CfgError.unsupported(section.location("coords"), what: "coords=\(coords) in [region] (only 4)")
        }
        let classes = try section.int("classes", default: 20)
        let num = try section.int("num", default: 1)
        for (key, value) in [("classes", classes), ("num", num)] where value < 1 {
            throw CfgError.invalidValue(section.location(key), value: String(value), expected: "an integer ≥ 1")
        }
        for key in ["background", "log", "sqrt"] where try section.int(key, default: 0) != 0 {
            throw CfgError.unsupported(section.location(key), what: "\(key) in [region]")
        }
        let softmax = try section.int("softmax", default: 0) != 0
        // make_region_layer sets every bias to 0.5; parse_region overwrites them from `anchors`.
        var anchors = [Float](repeating: 0.5, count: num * 2)
        if let listed = try section.floatList("anchors") {
            for (i, value) in listed.prefix(num * 2).enumerated() { anchors[i] = value }
        }
        let tree = try ClassTree.load(section, classes: classes, limits: limits)
        return Region(head: RegionHead(anchors: anchors, classes: classes, softmax: softmax, tree: tree))
    }

    /// Channels the input must have: `num · (4 + 1 + classes)`.
    public var expectedChannels: Int { head.anchorCount * (head.classes + 5) }

    /// `forward_region_layer` on `shape` (a channel-major batch: each channel's planes
    /// stacked, as `Network` passes it; the softmax runs over each cell of each plane).
    func forward(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, shape: TensorShape, threads: Int) {
        let plane = shape.height * shape.width
        output.update(from: input, count: shape.count)
        let entries = head.classes + 5
        for n in 0..<head.anchorCount {
            let base = output + n * entries * plane
            logistic.apply(base, count: 2 * plane, threads: threads)
            logistic.apply(base + 4 * plane, count: plane, threads: threads)
            if !head.softmax && head.tree == nil {
                logistic.apply(base + 5 * plane, count: head.classes * plane, threads: threads)
            }
        }
        if let tree = head.tree {
            for n in 0..<head.anchorCount {
                for g in tree.groupSizes.indices {
                    let first = (n * entries + 5 + tree.groupOffsets[g]) * plane
                    for cell in 0..<plane {
                        Self.softmax(input + first + cell, count: tree.groupSizes[g], stride: plane, into: output + first + cell)
                    }
                }
            }
            return
        }
        guard head.softmax else { return }
        for n in 0..<head.anchorCount {
            let scores = input + (n * entries + 5) * plane, out = output + (n * entries + 5) * plane
            for cell in 0..<plane {
                Self.softmax(scores + cell, count: head.classes, stride: plane, into: out + cell)
            }
        }
    }

    /// blas.c `softmax(input, n, temp = 1, stride, output)`: largest from −FLT_MAX, each
    /// `e = exp(x − largest)` (Float subtraction, C's double `exp` rounded to Float), a Float
    /// running sum, then each `e / sum`.
    static func softmax(_ x: UnsafePointer<Float>, count: Int, stride: Int, into y: UnsafeMutablePointer<Float>) {
        var largest = -Float.greatestFiniteMagnitude
        for i in 0..<count where x[i * stride] > largest { largest = x[i * stride] }
        var sum: Float = 0
        for i in 0..<count {
            let e = Float(Foundation.exp(Double(x[i * stride] - largest)))
            sum += e
            y[i * stride] = e
        }
        for i in 0..<count { y[i * stride] /= sum }
    }
}

extension Region: LayerType {
    static let sectionNames = ["region"]

    static func limitedKeys(_ limits: ModelLimits) -> [(key: String, limit: Int)] {
        [("num", limits.maximumAnchors), ("classes", limits.maximumChannels)]
    }

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        var region = try parse(section, limits: context.limits)
        region.logistic = context.dialect.activation(.logistic)
        if context.input.channels != region.expectedChannels {
            throw CfgError.filtersMismatch(headFiltersLocation(context), layer: max(context.index - 1, 0),
                                           filters: context.input.channels, expected: region.expectedChannels)
        }
        return ParsedLayer(kind: .region(region), input: context.input, output: context.input)
    }

    var detectionHead: (any DetectionHeadLayer)? { self }

    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        forward(input: run.input, output: run.output, shape: run.stacked(run.layer.output), threads: run.threads)
    }

    /// `make_region_layer`'s line: `detection`.
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String { "detection" }

    func optionsSummary(_ layer: Layer) -> String { "classes \(head.classes)" }
}

extension Region: DetectionHeadLayer {
    var classes: Int { head.classes }

    func nms(at place: String) -> (kind: NMSKind, reason: String) {
        (.default, "the last head is a [region] (\(place)), which has no nms_kind")
    }

    var classTree: ClassTree? { head.tree }

    /// AlexeyAB's `[region]` boxes go through his `correct_yolo_boxes` (`1/ratio`);
    /// pjreddie's `correct_region_boxes` scales by `netw/new_w`.
    func correctsByReciprocalRatio(in dialect: CfgDialect) -> Bool { dialect == .alexeyAB }

    /// Anchors outermost, then cells (`get_region_detections`); pjreddie's darknet keeps every
    /// slot, one below the threshold with objectness 0 (`DecodeOptions.keepsEveryRegionSlot`).
    /// With a class tree, `RegionTreeDecoder` picks the class and the order as the dialect's
    /// darknet does (`HeadDecoding.treeDecoding`).
    func decode(_ values: UnsafeBufferPointer<Float>, shape: TensorShape, _ decoding: HeadDecoding) throws -> [Candidate] {
        if let tree = head.tree {
            return try RegionTreeDecoder.decode(values, gridWidth: shape.width, gridHeight: shape.height, head: head,
                                                tree: tree, decoding: decoding.treeDecoding, threshold: decoding.threshold)
        }
        let tensor = TensorDescriptor.nchw(channels: shape.channels, height: shape.height, width: shape.width)
        let options = DecodeOptions(keepsEveryRegionSlot: decoding.dialect == .pjreddie)
        return try YOLODecoder.decode(values, tensor: tensor, head: .region(head), networkWidth: decoding.networkWidth,
                                      networkHeight: decoding.networkHeight, threshold: decoding.threshold,
                                      options: options)
    }
}
