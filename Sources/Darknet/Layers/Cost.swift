/// `[cost]`: training only. At inference its output is its input (darknet's `network_predict`
/// returns the last non-cost layer's output, `get_network_output`); shape unchanged.
public struct Cost: Sendable, Hashable {
    static let keys: Set<String> = ["type", "scale", "ratio", "noobject_scale", "thresh"]
}
