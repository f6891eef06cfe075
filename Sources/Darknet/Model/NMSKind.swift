import YOLO

/// AlexeyAB's `nms_kind` of a `[yolo]` or `[Gaussian_yolo]` head: how `detector test`
/// suppresses overlapping boxes (box.c's `do_nms_sort` and `diounms_sort`).
public enum NMSKind: Sendable, Hashable, CustomStringConvertible {
    /// `default`: IoU within each class (`do_nms_sort`, pjreddie's only kind).
    case `default`
    /// `greedynms`: `diounms_sort` suppressing by DIoU with the exponent 0.6 (`box_diou`).
    case greedy
    /// `diounms`: `diounms_sort` suppressing by `iou − (d/c)^beta_nms` (`box_diounms`).
    case diou(beta: Float)
    /// `cornersnms`: `diounms_sort` by IoU (its box merging is commented out), which gives
    /// `default`'s answers. Only `[Gaussian_yolo]` reads it; `[yolo]` turns it into `default`.
    case corners

    /// The suppression `YOLO.NMS` runs for it.
    public var mode: NMS.Mode {
        switch self {
        case .default, .corners: .perClass
        case .greedy: .greedyDIoU
        case .diou(let beta): .diou(beta: beta)
        }
    }

    /// The cfg's spelling, with `beta_nms` for `diounms`.
    public var description: String {
        switch self {
        case .default: "default"
        case .greedy: "greedynms"
        case .diou(let beta): "diounms (beta_nms \(beta))"
        case .corners: "cornersnms"
        }
    }

    /// The kind `nms_kind` and `beta_nms` of `section` name, as AlexeyAB's `parse_yolo`
    /// (`cornersnms` only where `acceptsCorners`, as `parse_gaussian_yolo`) reads them. A name
    /// his parser does not know is `default` for him too; here it is a warning naming the line.
    static func parse(_ section: CfgSection, acceptsCorners: Bool) throws -> NMSKind {
        guard let option = section.option("nms_kind") else { return .default }
        switch option.value {
        case "default": return .default
        case "greedynms": return .greedy
        case "diounms": return .diou(beta: try section.float("beta_nms", default: 0.6))
        case "cornersnms" where acceptsCorners: return .corners
        default:
            section.notes.add(CfgWarning(location: section.location("nms_kind"),
                                         message: "nms_kind '\(option.value)' is not one [\(section.name)] knows; darknet uses default (IoU) NMS"))
            return .default
        }
    }
}

extension ModelDescription {
    /// The NMS `detector test` runs after this network, and why: the last detection head's
    /// (`DetectionHeadLayer.nms`: AlexeyAB's `test_detector` keeps the `nms_kind` of the last
    /// head it meets; `[region]` and `[detection]` have none, so `default`).
    public var nmsKind: (kind: NMSKind, reason: String) {
        for layer in layers.reversed() {
            if let head = layer.detectionHead { return head.nms(at: "layer \(layer.index), line \(layer.location.line)") }
        }
        return (.default, "no detection head")
    }
}
