import Kernels
import YOLO

/// `[Gaussian_yolo]` (AlexeyAB, Gaussian YOLOv3): input = output `(mask.count · (9 + classes)) × H × W`,
/// per anchor μ and σ of x, y, w, h, then objectness and the class scores (`GaussianYOLOHead`).
/// Forward is AlexeyAB's `forward_gaussian_yolo_layer` at inference: the logistic on μx, σx,
/// μy, σy, σw, σh, objectness and classes, `scale_x_y` on μx and μy; μw and μh copied raw. The
/// logistic is his Float one (`AlexeyABLogistic`): the section is his alone.
/// Boxes and their uncertainty-weighted scores are decoded by `GaussianYOLODecoder`.
public struct GaussianYolo: Sendable, Hashable {
    public var head: GaussianYOLOHead
    public var nmsKind: NMSKind = .default
    /// Training settings AlexeyAB's table shows; inference ignores them.
    public var loss = YoloLossSettings()

    static let honouredKeys: Set<String> = ["mask", "anchors", "classes", "num", "scale_x_y", "yolo_point", "nms_kind",
                                            "beta_nms"]
    static let keys: Set<String> = honouredKeys.union([
        "max", "max_delta", "counters_per_class", "label_smooth_eps", "objectness_smooth", "uc_normalizer",
        "iou_normalizer", "obj_normalizer", "cls_normalizer", "delta_normalizer", "iou_loss", "iou_thresh_kind",
        "jitter", "resize", "ignore_thresh", "truth_thresh", "iou_thresh", "random", "map",
    ])

    static func parse(_ section: CfgSection) throws -> GaussianYolo {
        // mask, anchors, classes, num and scale_x_y as `[yolo]` reads them.
        let yolo = try Yolo.parseHead(section)
        let pointName = section.string("yolo_point", default: "center")
        guard let point = GaussianYOLOHead.Point(rawValue: pointName) else {
            throw CfgError.invalidValue(section.location("yolo_point"), value: pointName,
                                        expected: "center, left_top or right_bottom")
        }
        let head = GaussianYOLOHead(anchors: yolo.head.anchors, mask: yolo.head.mask, classes: yolo.head.classes,
                                    scaleXY: yolo.scaleXY, point: point)
        return GaussianYolo(head: head, nmsKind: try NMSKind.parse(section, acceptsCorners: true), loss: yolo.loss)
    }

    /// Channels the input must have: `mask.count · (9 + classes)`.
    public var expectedChannels: Int { head.mask.count * head.entriesPerAnchor }

    /// One image (or a stacked batch: `shape.height` = H · images).
    func forward(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, shape: TensorShape, threads: Int) {
        let plane = shape.height * shape.width
        output.update(from: input, count: shape.count)
        let (scale, beta) = (head.scaleXY, Float(-0.5 * (Double(head.scaleXY) - 1)))
        for n in 0..<head.mask.count {
            let base = output + n * head.entriesPerAnchor * plane
            for (entry, planes) in [(0, 2), (2, 2), (5, 1), (7, 1), (8, 1 + head.classes)] {
                AlexeyABLogistic.apply(base + entry * plane, base + entry * plane, count: planes * plane, threads: threads)
            }
            if scale != 1 {
                for entry in [0, 2] {
                    for i in 0..<plane { base[entry * plane + i] = base[entry * plane + i] * scale + beta }
                }
            }
        }
    }
}

extension GaussianYolo: LayerType {
    /// AlexeyAB spells it `[Gaussian_yolo]`; section names are read in any case.
    static let sectionNames = ["gaussian_yolo"]

    static func limitedKeys(_ limits: ModelLimits) -> [(key: String, limit: Int)] {
        [("num", limits.maximumAnchors), ("classes", limits.maximumChannels)]
    }

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        let layer = try parse(section)
        if context.input.channels != layer.expectedChannels {
            throw CfgError.shapeMismatch(headFiltersLocation(context), layer: max(context.index - 1, 0),
                                         detail: "filters=\(context.input.channels) before a [Gaussian_yolo] that needs (classes + 9) × mask count = \(layer.expectedChannels)")
        }
        return ParsedLayer(kind: .gaussianYolo(layer), input: context.input, output: context.input)
    }

    var detectionHead: (any DetectionHeadLayer)? { self }

    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        forward(input: run.input, output: run.output, shape: run.stacked(run.layer.output), threads: run.threads)
    }

    /// AlexeyAB's row, `parse_gaussian_yolo`'s line: `[Gaussian_yolo] ` + the loss settings +
    /// `, scale: %2.2f, point: %d` (his `YOLO_POINT`: center 1, left_top 2, right_bottom 4). In
    /// pjreddie's layout (never a cfg's: the section is his) the name alone, like `[yolo]`'s row.
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String {
        guard dialect == .alexeyAB else { return "Gaussian_yolo" }
        let point = [GaussianYOLOHead.Point.center: 1, .leftTop: 2, .rightBottom: 4][head.point] ?? 1
        return "[Gaussian_yolo] " + loss.described + String(format: ", scale: %2.2f, point: %d", Double(head.scaleXY), point)
    }

    func optionsSummary(_ layer: Layer) -> String { "classes \(head.classes)" }
}

extension GaussianYolo: DetectionHeadLayer {
    var classes: Int { head.classes }

    func nms(at place: String) -> (kind: NMSKind, reason: String) {
        (nmsKind, "nms_kind of the last [Gaussian_yolo] (\(place))")
    }

    /// AlexeyAB's `correct_gaussian_yolo_boxes` scales w and h by `netw/new_w`, never by `1/ratio`.
    func correctsByReciprocalRatio(in dialect: CfgDialect) -> Bool { false }

    /// `GaussianYOLODecoder`: cells row-major, then anchors (`get_gaussian_yolo_detections`).
    func decode(_ values: UnsafeBufferPointer<Float>, shape: TensorShape, _ decoding: HeadDecoding) throws -> [Candidate] {
        try GaussianYOLODecoder.decode(values, gridWidth: shape.width, gridHeight: shape.height, head: head,
                                       networkWidth: decoding.networkWidth, networkHeight: decoding.networkHeight,
                                       threshold: decoding.threshold)
    }
}
