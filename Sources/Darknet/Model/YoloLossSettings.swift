import Foundation

/// The training settings of a `[yolo]` or `[Gaussian_yolo]` head that AlexeyAB's parser prints
/// in his layer table (`parse_yolo`'s `[yolo] params:` line, `parse_gaussian_yolo`'s row).
/// Inference does not use them; `summary` shows them as his darknet does.
public struct YoloLossSettings: Sendable, Hashable {
    /// `iou_loss` as the cfg spells it (default `mse`).
    public var iouLoss = "mse"
    public var iouNormalizer: Float = 0.75
    public var objNormalizer: Float = 1
    public var clsNormalizer: Float = 1
    public var deltaNormalizer: Float = 1

    public init() {}

    /// His `IOU_LOSS` number for `iouLoss` (`IOU, GIOU, MSE, DIOU, CIOU`): a name he does
    /// not know is `IOU`, 0.
    public var iouLossNumber: Int {
        switch iouLoss {
        case "giou": 1
        case "mse": 2
        case "diou": 3
        case "ciou": 4
        default: 0
        }
    }

    /// The keys with his defaults; a value that is not a number is an error naming its line.
    static func parse(_ section: CfgSection) throws -> YoloLossSettings {
        var settings = YoloLossSettings()
        settings.iouLoss = section.string("iou_loss", default: "mse")
        settings.iouNormalizer = try section.float("iou_normalizer", default: 0.75)
        settings.objNormalizer = try section.float("obj_normalizer", default: 1)
        settings.clsNormalizer = try section.float("cls_normalizer", default: 1)
        settings.deltaNormalizer = try section.float("delta_normalizer", default: 1)
        return settings
    }

    /// `iou loss: %s (%d), iou_norm: %2.2f, obj_norm: %2.2f, cls_norm: %2.2f, delta_norm: %2.2f`,
    /// the part both heads print (each value his Float).
    var described: String {
        "iou loss: \(iouLoss)" + String(format: " (%d), iou_norm: %2.2f, obj_norm: %2.2f, cls_norm: %2.2f, delta_norm: %2.2f",
                                         iouLossNumber, Double(iouNormalizer), Double(objNormalizer), Double(clsNormalizer),
                                         Double(deltaNormalizer))
    }
}
