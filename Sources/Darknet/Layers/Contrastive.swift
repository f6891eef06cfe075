import Foundation
import Kernels

/// `[contrastive]` (AlexeyAB, the contrastive-embedding loss of yolov4-tiny_contrastive): a
/// training loss. At inference `forward_contrastive_layer` returns at once, so its output is
/// the zeros it was allocated with; nothing reads it for detection. Shape unchanged.
/// `yolo_layer` must name a `[yolo]` layer (AlexeyAB's parser stops otherwise).
public struct Contrastive: Sendable, Hashable {
    /// Absolute index of the `[yolo]` layer the loss trains.
    public var yoloLayer: Int
    /// That layer's anchors (its mask's count) and classes, which AlexeyAB's table shows.
    public var anchors = 1
    public var classes = 1

    static let keys: Set<String> = ["classes", "yolo_layer", "temperature", "cls_normalizer", "max_delta",
                                    "contrastive_neg_max"]
    static let honouredKeys: Set<String> = ["yolo_layer"]
}

extension Contrastive: LayerType {
    static let sectionNames = ["contrastive"]

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        let relative = try section.int("yolo_layer", default: 0)
        let index = relative < 0 ? context.index + relative : relative
        guard relative != 0, index >= 0, index < context.index, case .yolo(let yolo) = context.layers[index].kind else {
            throw CfgError.invalidValue(section.location("yolo_layer"), value: String(relative),
                                        expected: "the index of a [yolo] layer before it")
        }
        let layer = Contrastive(yoloLayer: index, anchors: yolo.head.mask.count, classes: yolo.head.classes)
        return ParsedLayer(kind: .contrastive(layer), input: context.input, output: context.input)
    }

    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        run.output.update(repeating: 0, count: run.outputCount)
    }

    /// The section's name alone in pjreddie's layout: a training loss, with no shapes to show.
    /// AlexeyAB's `make_contrastive_layer` line, at batch 1 (his `detector test`): `contrastive
    /// %4d x%4d x%4d x emb_size %4d x batch: %4d  classes = %4d, step = %4zu ` (W, H, anchors,
    /// `C·H·W / (anchors·H·W)`, the batch, classes, `batch·anchors·H·W`), then `detection `.
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String {
        guard dialect == .alexeyAB else { return "contrastive" }
        let i = layer.input, plane = anchors * i.height * i.width
        return String(format: "contrastive %4d x%4d x%4d x emb_size %4d x batch: %4d  classes = %4d, step = %4d ",
                      i.width, i.height, anchors, i.count / plane, 1, classes, plane) + "\ndetection "
    }
}
