import Foundation
import Kernels

/// `[cost]`: training only. At inference its output is its input (darknet's `network_predict`
/// returns the last non-cost layer's output, `get_network_output`); shape unchanged.
public struct Cost: Sendable, Hashable {
    static let keys: Set<String> = ["type", "scale", "ratio", "noobject_scale", "thresh"]
    /// Keys read and honoured; the other `keys` are training-only (ignored) or `rejectedKeys`.
    static let honouredKeys: Set<String> = []
    /// Keys that are a typed error (naming key and line) unless darknet's default, with a value that triggers it.
    static let rejectedKeys: [String: String] = [:]
}

extension Cost: LayerType {
    static let sectionNames = ["cost"]

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        ParsedLayer(kind: .cost(Cost()), input: context.input, output: context.input)
    }

    /// The identity: the output block is the input's when the memory plan shares them.
    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        if run.output != run.input { run.output.update(from: run.input, count: run.outputCount) }
    }

    /// `make_cost_layer`'s line: its inputs.
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String {
        String(format: "cost                                           %4d", layer.input.count)
    }
}
