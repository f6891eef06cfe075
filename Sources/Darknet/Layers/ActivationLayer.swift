import Foundation
import Kernels

/// `[activation]`: the previous layer's output through `activation` (default linear), shape
/// unchanged (`forward_activation_layer`: a copy, then `activate_array`).
///
/// AlexeyAB's CPU `activate_array` has no case for swish, mish, hard_mish or relu6 and
/// writes 0 for them (and computes leaky as `.1f·x` in Float); the engine computes every
/// activation as a convolution's epilogue does, so those give their formulas here.
public struct ActivationLayer: Sendable, Hashable {
    public var activation: Activation

    static let keys: Set<String> = ["activation"]
    static let honouredKeys: Set<String> = keys
}

extension ActivationLayer: LayerType {
    static let sectionNames = ["activation"]

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        let activation = try Activation(cfgName: section.string("activation", default: "linear"), location: section.location("activation"))
        return ParsedLayer(kind: .activation(ActivationLayer(activation: context.dialect.activation(activation))), input: context.input, output: context.input)
    }

    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        if run.output != run.input { run.output.update(from: run.input, count: run.outputCount) }
        activation.apply(run.output, count: run.outputCount, threads: run.threads)
    }

    /// `make_activation_layer`'s line, `Activation Layer: %d inputs`; in pjreddie's layout the
    /// activation follows.
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String {
        String(format: "Activation Layer: %d inputs", layer.input.count) + (dialect == .alexeyAB ? "" : " (\(activation.cfgName))")
    }

    func optionsSummary(_ layer: Layer) -> String { activation.cfgName }
}
