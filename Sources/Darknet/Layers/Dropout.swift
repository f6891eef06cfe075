import Foundation
import Kernels

/// `[dropout]`: the identity at inference (darknet's `forward_dropout_layer` returns at once
/// when not training); shape unchanged. `probability` (default 0.5) only shows in the table.
public struct Dropout: Sendable, Hashable {
    public var probability: Float

    static let keys: Set<String> = ["probability", "dropblock", "dropblock_size_rel", "dropblock_size_abs"]
    /// Keys read and honoured; the other `keys` are training-only (ignored) or `rejectedKeys`.
    static let honouredKeys: Set<String> = []
    /// Keys that are a typed error (naming key and line) unless darknet's default, with a value that triggers it.
    static let rejectedKeys: [String: String] = [:]

    static func parse(_ section: CfgSection) throws -> Dropout {
        let probability = try section.float("probability", default: 0.5)
        if !(probability >= 0 && probability <= 1) {
            throw CfgError.invalidValue(section.location("probability"), value: String(probability), expected: "a probability in 0...1")
        }
        return Dropout(probability: probability)
    }
}

extension Dropout: LayerType {
    static let sectionNames = ["dropout"]

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        ParsedLayer(kind: .dropout(try parse(section)), input: context.input, output: context.input)
    }

    /// The identity: the output block is the input's when the memory plan shares them.
    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        if run.output != run.input { run.output.update(from: run.input, count: run.outputCount) }
    }

    /// `make_dropout_layer`'s line: the probability, inputs and outputs.
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String {
        String(format: "dropout       p = %.2f               %4d  ->  %4d", probability, layer.input.count, layer.input.count)
    }

    func optionsSummary(_ layer: Layer) -> String { String(format: "p %.2f", probability) }
}
