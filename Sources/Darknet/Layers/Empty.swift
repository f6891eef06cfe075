import Kernels

/// `[empty]` and `[silence]` (AlexeyAB): the identity. His parser makes the layer's output the
/// previous layer's own buffer and its forward does nothing. Shape unchanged, no keys.
public struct Empty: Sendable, Hashable {
    static let keys: Set<String> = []
    static let honouredKeys: Set<String> = []

    public init() {}
}

extension Empty: LayerType {
    static let sectionNames = ["empty", "silence"]

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        ParsedLayer(kind: .empty(Empty()), input: context.input, output: context.input)
    }

    /// The identity: nothing to do when the memory plan shares the input's block.
    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        if run.output != run.input { run.output.update(from: run.input, count: run.outputCount) }
    }

    /// AlexeyAB's parser prints `empty ` (for `[silence]` too); pjreddie's layout has no line
    /// for it (`LayerType.namedRow`).
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String { dialect == .alexeyAB ? "empty " : namedRow(layer) }
}
