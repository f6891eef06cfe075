import Foundation
import Kernels
import YOLO

/// `[detection]` (YOLOv1, pjreddie's detection_layer.c): the head of a flat output of
/// `side²·(classes + (1 + coords)·num)` floats, shape unchanged (`YOLOv1Head` has the
/// layout). Forward at inference: a copy, then with `softmax=1` darknet's softmax over each
/// cell's class scores (`forward_detection_layer`). Boxes are decoded by `YOLOv1Decoder`.
/// Only `coords=4` (every YOLOv1 cfg) is read: the decoder knows no other box.
public struct DetectionLayer: Sendable, Hashable {
    public var head: YOLOv1Head
    public var softmax: Bool

    static let honouredKeys: Set<String> = ["classes", "num", "side", "coords", "softmax", "sqrt"]
    static let keys: Set<String> = honouredKeys.union([
        "rescore", "max", "coord_scale", "forced", "object_scale", "noobject_scale", "class_scale", "jitter", "random",
        "reorg",
    ])

    static func parse(_ section: CfgSection) throws -> DetectionLayer {
        let coords = try section.int("coords", default: 1)
        guard coords == 4 else {
            throw CfgError.unsupported(section.location("coords"), what: "coords=\(coords) in [detection] (YOLOv1 boxes have 4)")
        }
        let head = YOLOv1Head(side: try section.int("side", default: 7), boxes: try section.int("num", default: 1),
                              classes: try section.int("classes", default: 1), sqrt: try section.int("sqrt", default: 0) != 0)
        for (key, value) in [("side", head.side), ("num", head.boxes), ("classes", head.classes)] where value < 1 {
            throw CfgError.invalidValue(section.location(key), value: String(value), expected: "an integer ≥ 1")
        }
        return DetectionLayer(head: head, softmax: try section.int("softmax", default: 0) != 0)
    }

    /// One image's output (`input` copied, then each cell's scores through the softmax).
    func forward(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, count: Int) {
        output.update(from: input, count: count)
        guard softmax else { return }
        for cell in 0..<(head.side * head.side) {
            let scores = output + cell * head.classes
            Region.softmax(scores, count: head.classes, stride: 1, into: scores)
        }
    }
}

extension DetectionLayer: LayerType {
    static let sectionNames = ["detection"]

    static func limitedKeys(_ limits: ModelLimits) -> [(key: String, limit: Int)] {
        [("num", limits.maximumAnchors), ("classes", limits.maximumChannels), ("side", limits.maximumInputSide)]
    }

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        let layer = try parse(section)
        guard let expected = layer.head.outputCount, expected == context.input.count else {
            throw CfgError.shapeMismatch(context.location, layer: context.index,
                                         detail: "[detection] with side=\(layer.head.side), num=\(layer.head.boxes), classes=\(layer.head.classes) needs side²·(classes + 5·num) = \(layer.head.outputCount.map(String.init) ?? "too many") inputs, got \(context.input.count)")
        }
        return ParsedLayer(kind: .detection(layer), input: context.input, output: context.input)
    }

    func workspaceCount(_ layer: Layer, _ context: PlanningContext) -> Int {
        LayerRun.eachImageCount(layer, batch: context.batch)
    }

    var detectionHead: (any DetectionHeadLayer)? { self }

    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        run.eachImage { forward(input: $0, output: $1, count: run.layer.output.count) }
    }

    /// `make_detection_layer`'s line: `Detection Layer`.
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String { "Detection Layer" }

    func optionsSummary(_ layer: Layer) -> String { "classes \(head.classes)" }
}

extension DetectionLayer: DetectionHeadLayer {
    var classes: Int { head.classes }

    func nms(at place: String) -> (kind: NMSKind, reason: String) {
        (.default, "the last head is a [detection] (\(place)), which has no nms_kind")
    }

    /// pjreddie's `yolo test` resizes the image to the network (`resize_image`), whatever the dialect.
    var inputFitting: InputFitting? {
        InputFitting(mapping: .stretch, reason: "a YOLOv1 [detection] head: darknet yolo test resizes")
    }

    /// pjreddie's `get_detection_detections` corrects nothing: `yolo test` resizes, and a box
    /// relative to a resized input is relative to the image. Under a letterbox the caller
    /// chose, boxes are mapped back by `netw/new_w`, as pjreddie's `correct_*_boxes` do.
    func correctsByReciprocalRatio(in dialect: CfgDialect) -> Bool { false }

    /// `YOLOv1Decoder`: cells, then boxes (`get_detection_detections`).
    func decode(_ values: UnsafeBufferPointer<Float>, shape: TensorShape, _ decoding: HeadDecoding) throws -> [Candidate] {
        try YOLOv1Decoder.decode(values, head: head, threshold: decoding.threshold)
    }
}
