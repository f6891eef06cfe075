import Foundation
import Kernels

/// `[sam]` (AlexeyAB, YOLOv4's spatial attention): `output = activation(previous · layers[from])`
/// element-wise (`forward_sam_layer`); both must have the previous layer's shape `C×H×W`,
/// the output too. Keys: `from` (one layer), `activation` (default linear).
public struct Sam: Sendable, Hashable {
    /// Absolute index of the multiplied layer.
    public var source: Int
    public var activation: Activation

    static let keys: Set<String> = ["from", "activation"]
    /// Keys read and honoured; the other `keys` are training-only (ignored) or `rejectedKeys`.
    static let honouredKeys: Set<String> = ["from", "activation"]
    /// Keys that are a typed error (naming key and line) unless darknet's default, with a value that triggers it.
    static let rejectedKeys: [String: String] = [:]

    static func parse(_ section: CfgSection, index: Int) throws -> Sam {
        let source = try fromIndex(section, index: index)
        let activation = try Activation(cfgName: section.string("activation", default: "linear"), location: section.location("activation"))
        return Sam(source: source, activation: activation)
    }

    /// The single absolute layer index of `from` (negative counts back from `index`).
    static func fromIndex(_ section: CfgSection, index: Int) throws -> Int {
        guard let from = try section.intList("from"), from.count == 1 else {
            throw CfgError.missingKey(CfgLocation(file: section.file, line: section.line, section: section.name, key: "from"))
        }
        let absolute = from[0] < 0 ? index + from[0] : from[0]
        guard absolute >= 0, absolute < index else {
            throw CfgError.layerReference(section.location("from"), layer: index, index: from[0], available: index)
        }
        return absolute
    }

    /// Pure shape inference: the previous layer's shape; nil when `from` has another.
    public func outputShape(input: TensorShape, sourceShape: TensorShape) -> TensorShape? {
        input == sourceShape ? input : nil
    }

    func forward(input: UnsafePointer<Float>, source: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, count: Int, threads: Int) {
        for i in 0..<count { output[i] = input[i] * source[i] }
        activation.apply(output, count: count, threads: threads)
    }
}

extension Sam: LayerType {
    static let sectionNames = ["sam"]

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        var sam = try parse(section, index: context.index)
        sam.activation = context.dialect.activation(sam.activation)
        let sourceShape = context.layers[sam.source].output
        guard let output = sam.outputShape(input: context.input, sourceShape: sourceShape) else {
            throw CfgError.shapeMismatch(section.location("from"), layer: context.index,
                                         detail: "sam multiplies layer \(sam.source) (\(sourceShape)) by the previous layer (\(context.input)); the shapes must match")
        }
        return ParsedLayer(kind: .sam(sam), input: context.input, output: output)
    }

    var references: [Int] { [source] }

    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        forward(input: run.input, source: run.output(of: source), output: run.output, count: run.outputCount, threads: run.threads)
    }

    /// The `[scale_channels]` line, `scale Layer: %d`, with the `from` layer.
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String { String(format: "scale Layer: %d", source) }

    func optionsSummary(_ layer: Layer) -> String { "from \(source)" }
}
