import Kernels

/// `[contrastive]` (AlexeyAB, the contrastive-embedding loss of yolov4-tiny_contrastive): a
/// training loss. At inference `forward_contrastive_layer` returns at once, so its output is
/// the zeros it was allocated with; nothing reads it for detection. Shape unchanged.
/// `yolo_layer` must name a `[yolo]` layer (AlexeyAB's parser stops otherwise).
public struct Contrastive: Sendable, Hashable {
    /// Absolute index of the `[yolo]` layer the loss trains.
    public var yoloLayer: Int

    static let keys: Set<String> = ["classes", "yolo_layer", "temperature", "cls_normalizer", "max_delta",
                                    "contrastive_neg_max"]
    static let honouredKeys: Set<String> = ["yolo_layer"]
}

extension Contrastive: LayerType {
    static let sectionNames = ["contrastive"]

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        let relative = try section.int("yolo_layer", default: 0)
        let index = relative < 0 ? context.index + relative : relative
        guard relative != 0, index >= 0, index < context.index, case .yolo = context.layers[index].kind else {
            throw CfgError.invalidValue(section.location("yolo_layer"), value: String(relative),
                                        expected: "the index of a [yolo] layer before it")
        }
        return ParsedLayer(kind: .contrastive(Contrastive(yoloLayer: index)), input: context.input, output: context.input)
    }

    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        run.output.update(repeating: 0, count: run.outputCount)
    }

    /// The section's name alone: a training loss, with no shapes to show.
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String { "contrastive" }
}
