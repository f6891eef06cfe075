import Foundation
import Kernels

/// `[dropout]`: the identity at inference (darknet's `forward_dropout_layer` returns at once
/// when not training); shape unchanged. `probability` (default 0.5; AlexeyAB's 0.2) and
/// AlexeyAB's DropBlock sizes only show in the table.
public struct Dropout: Sendable, Hashable {
    public var probability: Float
    /// AlexeyAB's `dropblock=1`.
    public var dropBlock = false
    /// His `dropblock_size_rel` and `dropblock_size_abs` as `parse_dropout` settles them.
    public var dropBlockRelative: Float = 0
    public var dropBlockAbsolute = 0

    static let keys: Set<String> = ["probability", "dropblock", "dropblock_size_rel", "dropblock_size_abs"]
    /// Keys read and honoured; the other `keys` are training-only (ignored) or `rejectedKeys`.
    static let honouredKeys: Set<String> = []
    /// Keys that are a typed error (naming key and line) unless darknet's default, with a value that triggers it.
    static let rejectedKeys: [String: String] = [:]

    static func parse(_ section: CfgSection, dialect: CfgDialect) throws -> Dropout {
        let probability = try section.float("probability", default: dialect == .alexeyAB ? 0.2 : 0.5)
        if !(probability >= 0 && probability <= 1) {
            throw CfgError.invalidValue(section.location("probability"), value: String(probability), expected: "a probability in 0...1")
        }
        return Dropout(probability: probability)
    }

    /// AlexeyAB's `parse_dropout`: `dropblock_size_abs` (read as a float, truncated to an int;
    /// here within ±1e9 first, so no value traps) is at most the input's width and height, 7
    /// when DropBlock has neither size, and wins over `dropblock_size_rel` when both are set.
    mutating func readDropBlock(_ section: CfgSection, input: TensorShape) throws {
        dropBlock = try section.int("dropblock", default: 0) != 0
        var relative = try section.float("dropblock_size_rel", default: 0)
        let read = try section.float("dropblock_size_abs", default: 0)
        var absolute = read.isFinite ? Int(max(min(read, 1e9), -1e9)) : 0
        if absolute > input.width || absolute > input.height { absolute = min(input.width, input.height) }
        if dropBlock && relative == 0 && absolute == 0 { absolute = 7 }
        if relative != 0 && absolute != 0 { relative = 0 }
        (dropBlockRelative, dropBlockAbsolute) = (relative, absolute)
    }
}

extension Dropout: LayerType {
    static let sectionNames = ["dropout"]

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        var dropout = try parse(section, dialect: context.dialect)
        try dropout.readDropBlock(section, input: context.input)
        return ParsedLayer(kind: .dropout(dropout), input: context.input, output: context.input)
    }

    /// The identity: the output block is the input's when the memory plan shares them.
    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        if run.output != run.input { run.output.update(from: run.input, count: run.outputCount) }
    }

    /// `make_dropout_layer`'s line: the probability, inputs and outputs. AlexeyAB's:
    /// `dropout    p = %.3f        %4d  ->   %4d`, or with DropBlock
    /// `dropblock    p = %.3f   l.dropblock_size_abs = %d    %4d  ->   %4d` (`_rel = %.2f`
    /// without an absolute size).
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String {
        let (p, count) = (Double(probability), layer.input.count)
        guard dialect == .alexeyAB else {
            return String(format: "dropout       p = %.2f               %4d  ->  %4d", p, count, count)
        }
        guard dropBlock else { return String(format: "dropout    p = %.3f        %4d  ->   %4d", p, count, count) }
        return dropBlockAbsolute != 0
            ? String(format: "dropblock    p = %.3f   l.dropblock_size_abs = %d    %4d  ->   %4d", p, dropBlockAbsolute, count, count)
            : String(format: "dropblock    p = %.3f   l.dropblock_size_rel = %.2f    %4d  ->   %4d", p, Double(dropBlockRelative),
                     count, count)
    }

    func optionsSummary(_ layer: Layer) -> String { String(format: "p %.2f", probability) }
}
