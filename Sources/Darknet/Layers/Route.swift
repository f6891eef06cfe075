/// `[route]`: concatenates the outputs of `layers` along channels. Every source must have
/// the same `H×W`; output `(ΣC) × H × W`. Negative indices count back from this layer
/// (darknet: `index = params.index + index`).
public struct Route: Sendable, Hashable {
    /// Absolute indices of the source layers, in cfg order.
    public var sources: [Int]

    static let keys: Set<String> = ["layers", "groups", "group_id", "stopbackward"]

    static func parse(_ section: CfgSection, index: Int) throws -> Route {
        guard let raw = try section.intList("layers"), !raw.isEmpty else {
            throw CfgError.missingKey(CfgLocation(file: section.file, line: section.line, section: section.name, key: "layers"))
        }
        if try section.int("groups", default: 1) != 1 {
            throw CfgError.unsupported(section.location("groups"), what: "route groups (group_id)")
        }
        let sources = try raw.map { value in
            let absolute = value < 0 ? index + value : value
            guard absolute >= 0, absolute < index else {
                throw CfgError.layerReference(section.location("layers"), layer: index, index: value, available: index)
            }
            return absolute
        }
        return Route(sources: sources)
    }

    /// Pure shape inference from the source shapes; nil when their `H×W` differ.
    public func outputShape(sourceShapes: [TensorShape]) -> TensorShape? {
        guard let first = sourceShapes.first else { return nil }
        var channels = 0
        for shape in sourceShapes {
            guard shape.height == first.height, shape.width == first.width else { return nil }
            channels += shape.channels
        }
        return TensorShape(channels: channels, height: first.height, width: first.width)
    }

    // No forward here: `MemoryPlan` makes most routes free (sources write into the route's
    // slices; one source is an alias) and `Network` copies the sources one after the other
    // (CHW planes are contiguous per channel) for the others, as `forward_route_layer` does.
}
