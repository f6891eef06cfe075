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

    /// Copies each source (its block `groupID` of `count / groups` floats) after the previous
    /// one (CHW planes are contiguous per channel). `Network` calls it only for the routes
    /// `MemoryPlan` could not put in place (most routes cost nothing: sources write into the
    /// route's slices, and a one-source route is an alias of its block `groupID`).
    func forward(sources: [(UnsafePointer<Float>, Int)], output: UnsafeMutablePointer<Float>) {
        var offset = 0
        for (pointer, count) in sources {
            let part = count / groups
            (output + offset).update(from: pointer + groupID * part, count: part)
            offset += part
        }
    }
}
