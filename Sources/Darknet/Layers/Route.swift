import Kernels

/// `[route]`: concatenates the outputs of `layers` along channels. Every source must have
/// the same `H×W`; output `(ΣC) × H × W`. Negative indices count back from this layer
/// (darknet: `index = params.index + index`).
///
/// AlexeyAB's `groups`/`group_id` (yolov4-tiny): each source's `C×H×W` is split into `groups`
/// equal channel blocks and only block `group_id` is taken, so the output has `ΣC / groups`
/// channels (`forward_route_layer` copies `input_size / groups` floats from offset
/// `group_id · input_size / groups` of each source).
public struct Route: Sendable, Hashable {
    /// Absolute indices of the source layers, in cfg order.
    public var sources: [Int]
    public var groups: Int = 1
    public var groupID: Int = 0

    static let keys: Set<String> = ["layers", "groups", "group_id", "stopbackward"]
    /// Keys read and honoured; the other `keys` are training-only (ignored) or `rejectedKeys`.
    static let honouredKeys: Set<String> = ["layers", "groups", "group_id"]
    /// Keys that are a typed error (naming key and line) unless darknet's default, with a value that triggers it.
    static let rejectedKeys: [String: String] = [:]

    static func parse(_ section: CfgSection, index: Int) throws -> Route {
        guard let raw = try section.intList("layers"), !raw.isEmpty else {
            throw CfgError.missingKey(CfgLocation(file: section.file, line: section.line, section: section.name, key: "layers"))
        }
        let groups = try section.int("groups", default: 1)
        let groupID = try section.int("group_id", default: 0)
        if groups < 1 {
            throw CfgError.invalidValue(section.location("groups"), value: String(groups), expected: "an integer ≥ 1")
        }
        if groupID < 0 || groupID >= groups {
            throw CfgError.invalidValue(section.location("group_id"), value: String(groupID), expected: "0...\(groups - 1) (groups=\(groups))")
        }
        let sources = try raw.map { value in
            let absolute = value < 0 ? index + value : value
            guard absolute >= 0, absolute < index else {
                throw CfgError.layerReference(section.location("layers"), layer: index, index: value, available: index)
            }
            return absolute
        }
        return Route(sources: sources, groups: groups, groupID: groupID)
    }

    /// Pure shape inference from the source shapes; nil when their `H×W` differ or a source's
    /// channels are not a multiple of `groups`.
    public func outputShape(sourceShapes: [TensorShape]) -> TensorShape? {
        guard let first = sourceShapes.first else { return nil }
        var channels = 0
        for shape in sourceShapes {
            guard shape.height == first.height, shape.width == first.width, shape.channels % groups == 0 else { return nil }
            channels += shape.channels / groups
        }
        return TensorShape(channels: channels, height: first.height, width: first.width)
    }
}

extension Route: LayerType {
    static let sectionNames = ["route"]

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        let route = try parse(section, index: context.index)
        let shapes = route.sources.map { context.layers[$0].output }
        guard let output = route.outputShape(sourceShapes: shapes) else {
            if let (source, shape) = zip(route.sources, shapes).first(where: { $0.1.channels % route.groups != 0 }) {
                throw CfgError.shapeMismatch(section.location("groups"), layer: context.index,
                                             detail: "layer \(source) has \(shape.channels) channels, which groups=\(route.groups) does not divide")
            }
            let listed = zip(route.sources, shapes).map { "layer \($0.0): \($0.1)" }.joined(separator: ", ")
            throw CfgError.shapeMismatch(section.location("layers"), layer: context.index,
                                         detail: "route sources differ in width × height (\(listed))")
        }
        return ParsedLayer(kind: .route(route), input: shapes[0], output: output)
    }

    var references: [Int] { sources }

    /// Copies each source (its block `groupID` of a `1/groups` of its floats) after the
    /// previous one (a batch's channel blocks are contiguous too). `Network` runs it only for
    /// the routes `MemoryPlan` could not put in place.
    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        var offset = 0
        for source in sources {
            let part = run.layers[source].output.count * run.batch / groups
            (run.output + offset).update(from: run.output(of: source) + groupID * part, count: part)
            offset += part
        }
    }

    /// `make_route_layer`'s line: `route ` then ` %d` for each source. AlexeyAB's
    /// `parse_route` goes on: ` \t    ` (more than 3 sources), ` \t            ` (2 or 3) or
    /// ` \t\t            ` (1), 11 spaces, `group_id/groups` or 3 spaces, ` -> %4d x%4d x%4d `.
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String {
        let row = "route " + sources.map { " \($0)" }.joined()
        guard dialect == .alexeyAB else { return row }
        let gap = sources.count > 3 ? " \t    " : sources.count > 1 ? " \t            " : " \t\t            "
        let o = layer.output
        return row + gap + String(repeating: " ", count: 11) + (groups > 1 ? "\(groupID)/\(groups)" : "   ")
            + String(format: " -> %4d x%4d x%4d ", o.width, o.height, o.channels)
    }

    /// `layers 85 61`, then ` group 1/2` with AlexeyAB's `groups`.
    func optionsSummary(_ layer: Layer) -> String {
        "layers " + sources.map(String.init).joined(separator: " ") + (groups > 1 ? " group \(groupID)/\(groups)" : "")
    }
}
