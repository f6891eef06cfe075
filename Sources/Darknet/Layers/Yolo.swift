import Kernels

import YOLO

/// `[yolo]`: input = output `(mask.count · (5 + classes)) × H × W`. Forward writes the logistic
/// (`Logistic`; `AlexeyABLogistic` in his dialect) of x, y, objectness and the class scores of
/// every anchor and copies w and h raw (darknet's `forward_yolo_layer` at inference: a copy,
/// then the logistic in place). Boxes are decoded by the `YOLO` module from this output.
///
/// AlexeyAB's `scale_x_y = s` (yolov4): after the logistic, x and y become `s·x − (s − 1)/2`
/// (`scal_add_cpu(2·w·h, s, −0.5·(s − 1), …)` in `forward_yolo_layer`), so the box centre can
/// reach the cell borders; decoding is unchanged.
///
/// AlexeyAB's `new_coords=1` (scaled-YOLOv4: yolov4-csp, -p5, -p6): the preceding convolution
/// already applies the logistic, so the layer applies none and only maps x and y with
/// `scale_x_y` (its `forward_yolo_layer` comments the activation out); the head's `newCoords`
/// makes the decoder use `w = tw·tw·4·anchorW / netW` (`get_yolo_box`).
public struct Yolo: Sendable, Hashable {
    public var head: YOLOHead
    public var scaleXY: Float = 1
    /// AlexeyAB's `nms_kind` (with `beta_nms`); `Detector` uses the last head's
    /// (`ModelDescription.nmsKind`), as AlexeyAB's `detector test` does.
    public var nmsKind: NMSKind = .default
    /// The cfg's dialect's logistic (`CfgDialect.activation`): pjreddie's `Logistic` or
    /// AlexeyAB's `AlexeyABLogistic`.
    public var logistic: Activation = .logistic
    /// Training settings AlexeyAB's table shows (`[yolo] params:`); inference ignores them.
    public var loss = YoloLossSettings()

    /// Keys read and honoured; every other key in `keys` is training-only (ignored) or in `rejectedKeys`.
    static let honouredKeys: Set<String> = ["mask", "anchors", "classes", "num", "scale_x_y", "new_coords", "nms_kind",
                                            "beta_nms"]
    /// Keys that are a typed error when set to anything but darknet's default, with an example value.
    static let rejectedKeys: [String: String] = [:]

    static let keys: Set<String> = [
        "mask", "anchors", "classes", "num", "jitter", "ignore_thresh", "truth_thresh", "random",
        "max_delta", "counters_per_class", "label_smooth_eps", "iou_normalizer", "cls_normalizer",
        "obj_normalizer", "delta_normalizer", "iou_loss", "iou_thresh_kind", "iou_thresh", "focal_loss",
        "resize", "map", "scale_x_y", "new_coords", "nms_kind", "beta_nms", "objectness_smooth",
        "embedding_layer", "track_history_size", "sim_thresh", "dets_for_track", "dets_for_show",
        "track_ciou_norm", "show_details", "uc_normalizer", "beta1",
    ]

    static func parse(_ section: CfgSection) throws -> Yolo {
        var yolo = try parseHead(section)
        yolo.nmsKind = try NMSKind.parse(section, acceptsCorners: false)
        return yolo
    }

    /// The head's keys (mask, anchors, classes, num, scale_x_y, new_coords), which
    /// `[Gaussian_yolo]` reads the same way.
    static func parseHead(_ section: CfgSection) throws -> Yolo {
        let classes = try section.int("classes", default: 20)
        var total = try section.int("num", default: 1)
        if classes < 1 {
            throw CfgError.invalidValue(section.location("classes"), value: String(classes), expected: "classes ≥ 1")
        }
        if total < 1 {
            throw CfgError.invalidValue(section.location("num"), value: String(total), expected: "num ≥ 1")
        }
        let mask = try section.intList("mask") ?? Array(0..<total)
        let listed = try section.floatList("anchors") ?? []
        // A mask past `num` whose anchors are listed (AlexeyAB's cspx-p7-mish: num=16, mask up
        // to 19, 20 pairs) reads past darknet's anchor array there; take the listed pairs.
        if let largest = mask.max(), largest >= total, largest < listed.count / 2 {
            section.notes.add(CfgWarning(location: section.location("mask"),
                                         message: "mask uses anchor \(largest) but num=\(total); the \(listed.count / 2) listed anchor pairs are used (darknet would read past its \(total))"))
            total = largest + 1
        }
        // darknet fills missing anchors with 0.5 (make_yolo_layer) and reads at most num pairs.
        var anchors = [Float](repeating: 0.5, count: total * 2)
        for (i, value) in listed.prefix(total * 2).enumerated() { anchors[i] = value }
        for index in mask where index < 0 || index >= total {
            throw CfgError.invalidValue(section.location("mask"), value: section.string("mask", default: ""),
                                        expected: "anchor indices in 0...\(total - 1) (num=\(total))")
        }
        let scaleXY = try section.float("scale_x_y", default: 1)
        if scaleXY <= 0 {
            throw CfgError.invalidValue(section.location("scale_x_y"), value: String(scaleXY), expected: "a positive number")
        }
        let newCoords = try section.int("new_coords", default: 0)
        guard newCoords == 0 || newCoords == 1 else {
            throw CfgError.invalidValue(section.location("new_coords"), value: String(newCoords), expected: "0 or 1")
        }
        var head = YOLOHead(anchors: anchors, mask: mask, classes: classes)
        head.newCoords = newCoords == 1
        return Yolo(head: head, scaleXY: scaleXY, loss: try YoloLossSettings.parse(section))
    }

    /// Channels the input must have: `mask.count · (classes + 5)`.
    public var expectedChannels: Int { head.mask.count * (head.classes + 5) }

    func forward(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, shape: TensorShape, threads: Int) {
        let plane = shape.height * shape.width
        let entries = head.classes + 5
        // The logistic reads the input and writes the output: no copy first, but for w and h
        // (with `new_coords` the convolution applied it: everything is copied). One job for the
        // whole head, cut anywhere (each element's bits are the same whoever computes it): per
        // anchor, x and y (then scaled), w and h copied, objectness and classes.
        let anchor = entries * plane, newCoords = head.newCoords
        Parallel.forChunks(of: head.mask.count * anchor, work: head.mask.count * anchor * 4, threads: threads) { range in
            var i = range.lowerBound
            while i < range.upperBound {
                let start = i / anchor * anchor, offset = i - start
                let end = min(range.upperBound, start + (offset < 2 * plane ? 2 * plane : offset < 4 * plane ? 4 * plane : anchor))
                if newCoords {
                    (output + i).update(from: input + i, count: end - i)
                    if offset < 2 * plane { scale(output + i, count: end - i) }
                } else if offset >= 2 * plane && offset < 4 * plane {
                    (output + i).update(from: input + i, count: end - i)
                } else {
                    if logistic == .alexeyABLogistic {
                        AlexeyABLogistic.serial(input + i, output + i, count: end - i)
                    } else {
                        Logistic.serial(input + i, output + i, count: end - i)
                    }
                    if offset < 2 * plane { scale(output + i, count: end - i) }
                }
                i = end
            }
        }
    }

    /// x and y → `scale_x_y · v − (scale_x_y − 1)/2` (nothing when `scale_x_y` is 1).
    private func scale(_ base: UnsafeMutablePointer<Float>, count: Int) {
        guard scaleXY != 1 else { return }
        let (a, b) = (scaleXY, -0.5 * (scaleXY - 1))
        for i in 0..<count { base[i] = base[i] * a + b }
    }
}

extension Yolo: LayerType {
    static let sectionNames = ["yolo"]

    static func limitedKeys(_ limits: ModelLimits) -> [(key: String, limit: Int)] {
        [("num", limits.maximumAnchors), ("classes", limits.maximumChannels)]
    }

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        var yolo = try parse(section)
        yolo.logistic = context.dialect.activation(.logistic)
        if context.input.channels != yolo.expectedChannels {
            throw CfgError.filtersMismatch(headFiltersLocation(context), layer: max(context.index - 1, 0),
                                           filters: context.input.channels, expected: yolo.expectedChannels)
        }
        return ParsedLayer(kind: .yolo(yolo), input: context.input, output: context.input)
    }

    var detectionHead: (any DetectionHeadLayer)? { self }

    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        forward(input: run.input, output: run.output, shape: run.stacked(run.layer.output), threads: run.threads)
    }

    /// `make_yolo_layer`'s line: `yolo`; in AlexeyAB's dialect then `parse_yolo`'s line
    /// `[yolo] params: ` + the loss settings + `, scale_x_y: %2.2f`.
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String {
        guard dialect == .alexeyAB else { return "yolo" }
        return "yolo\n[yolo] params: " + loss.described + String(format: ", scale_x_y: %2.2f", Double(scaleXY))
    }

    func optionsSummary(_ layer: Layer) -> String { "classes \(head.classes)" }
}

extension Yolo: DetectionHeadLayer {
    var classes: Int { head.classes }

    func nms(at place: String) -> (kind: NMSKind, reason: String) { (nmsKind, "nms_kind of the last [yolo] (\(place))") }

    /// AlexeyAB's `correct_yolo_boxes` scales w and h by `1/ratio`; pjreddie's by `netw/new_w`.
    func correctsByReciprocalRatio(in dialect: CfgDialect) -> Bool { dialect == .alexeyAB }

    /// `YOLODecoder`: cells row-major, then anchors (`get_yolo_detections`).
    func decode(_ values: UnsafeBufferPointer<Float>, shape: TensorShape, _ decoding: HeadDecoding) throws -> [Candidate] {
        try YOLODecoder.decode(values, gridWidth: shape.width, gridHeight: shape.height, head: head,
                               networkWidth: decoding.networkWidth, networkHeight: decoding.networkHeight,
                               threshold: decoding.threshold)
    }
}

/// The location to blame when a head's input has the wrong channel count: the `filters` key of
/// the convolution before it (what a user edits), else the head's own section.
func headFiltersLocation(_ context: LayerContext) -> CfgLocation {
    guard let previous = context.layers.last, case .convolutional = previous.kind else { return context.location }
    return CfgLocation(file: previous.location.file, line: previous.location.line, section: previous.location.section,
                       key: "filters")
}
