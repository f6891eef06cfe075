import Foundation
import Kernels

/// `[scale_channels]` (AlexeyAB, squeeze-and-excitation): the output has the shape of
/// `layers[from]` (`C×H×W`); each value is multiplied by the previous layer's
/// (`forward_scale_channels_layer`):
/// - `scale_wh=0` (default): previous is `C×1×1`, `out[c][y][x] = prev[c] · from[c][y][x]`;
/// - `scale_wh=1`: previous is `1×H×W`, `out[c][y][x] = prev[y][x] · from[c][y][x]`.
/// Then `activation` (default linear).
public struct ScaleChannels: Sendable, Hashable {
    /// Absolute index of the scaled layer.
    public var source: Int
    public var scaleWH: Bool
    public var activation: Activation

    static let keys: Set<String> = ["from", "scale_wh", "activation"]
    /// Keys read and honoured; the other `keys` are training-only (ignored) or `rejectedKeys`.
    static let honouredKeys: Set<String> = ["from", "scale_wh", "activation"]
    /// Keys that are a typed error (naming key and line) unless darknet's default, with a value that triggers it.
    static let rejectedKeys: [String: String] = [:]

    static func parse(_ section: CfgSection, index: Int) throws -> ScaleChannels {
        let source = try Sam.fromIndex(section, index: index)
        let activation = try Activation(cfgName: section.string("activation", default: "linear"), location: section.location("activation"))
        return ScaleChannels(source: source, scaleWH: try section.int("scale_wh", default: 0) != 0, activation: activation)
    }

    /// Pure shape inference: `from`'s shape; nil when the previous layer is not `C×1×1`
    /// (or `1×H×W` with `scale_wh`) for it.
    public func outputShape(input: TensorShape, sourceShape: TensorShape) -> TensorShape? {
        if scaleWH {
            return input.channels == 1 && input.height == sourceShape.height && input.width == sourceShape.width ? sourceShape : nil
        }
        return input.channels == sourceShape.channels && input.height == 1 && input.width == 1 ? sourceShape : nil
    }

    /// `source` is `sourceShape`'s planes; `input` holds one scale per plane (`C×1×1`) or, with
    /// `scale_wh`, one `H×W` plane of scales per image. With a channel-major batch of `batch`
    /// images `sourceShape` counts `C·batch` planes, and plane `p` is image `p % batch`'s.
    func forward(input: UnsafePointer<Float>, source: UnsafePointer<Float>, sourceShape: TensorShape,
                 output: UnsafeMutablePointer<Float>, batch: Int = 1, threads: Int) {
        let plane = sourceShape.height * sourceShape.width
        for c in 0..<sourceShape.channels {
            let scales = input + (scaleWH ? (c % batch) * plane : c)
            for i in 0..<plane {
                let scale = scaleWH ? scales[i] : scales[0]
                output[c * plane + i] = scale * source[c * plane + i]
            }
        }
        activation.apply(output, count: sourceShape.count, threads: threads)
    }
}

extension ScaleChannels: LayerType {
    static let sectionNames = ["scale_channels"]

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        var scale = try parse(section, index: context.index)
        scale.activation = context.dialect.activation(scale.activation)
        let sourceShape = context.layers[scale.source].output
        guard let output = scale.outputShape(input: context.input, sourceShape: sourceShape) else {
            throw CfgError.shapeMismatch(section.location("from"), layer: context.index,
                                         detail: "scale_channels scales layer \(scale.source) (\(sourceShape)) by the previous layer (\(context.input)), which must be C×1×1 (1×H×W with scale_wh=1)")
        }
        return ParsedLayer(kind: .scaleChannels(scale), input: context.input, output: output)
    }

    var references: [Int] { [source] }

    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        forward(input: run.input, source: run.output(of: source), sourceShape: run.planes(run.layer.output), output: run.output,
                batch: run.batch, threads: run.threads)
    }

    /// AlexeyAB's `make_scale_channels_layer` line: `scale Layer: %d`, the `from` layer.
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String { String(format: "scale Layer: %d", source) }

    /// `from 12`, then ` scale_wh`.
    func optionsSummary(_ layer: Layer) -> String { "from \(source)" + (scaleWH ? " scale_wh" : "") }
}
