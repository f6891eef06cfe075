/// `[shortcut]`: `output = alpha · previous + beta · layers[from]`, then `activation`
/// (darknet's `shortcut_cpu` with `s1 = alpha`, `s2 = beta`, both 1 by default; activation
/// linear by default). Input and output are the previous layer's `C×H×W`; `from` must have
/// the same shape here.
public struct Shortcut: Sendable, Hashable {
    /// Absolute index of the added layer.
    public var source: Int
    public var activation: Activation
    public var alpha: Float
    public var beta: Float

    static let keys: Set<String> = ["from", "activation", "alpha", "beta", "weights_type", "weights_normalization"]

    static func parse(_ section: CfgSection, index: Int) throws -> Shortcut {
        guard let from = try section.intList("from"), !from.isEmpty else {
            throw CfgError.missingKey(CfgLocation(file: section.file, line: section.line, section: section.name, key: "from"))
        }
        if from.count > 1 {
            throw CfgError.unsupported(section.location("from"), what: "shortcut from several layers")
        }
        if section.string("weights_type", default: "none") != "none" {
            throw CfgError.unsupported(section.location("weights_type"), what: "weighted shortcut")
        }
        let absolute = from[0] < 0 ? index + from[0] : from[0]
        guard absolute >= 0, absolute < index else {
            throw CfgError.layerReference(section.location("from"), layer: index, index: from[0], available: index)
        }
        let activation = try Activation(cfgName: section.string("activation", default: "linear"),
                                        location: section.location("activation"))
        return Shortcut(source: absolute, activation: activation,
                        alpha: try section.float("alpha", default: 1), beta: try section.float("beta", default: 1))
    }

    /// Pure shape inference: the previous layer's shape; nil when `from` has another shape.
    public func outputShape(input: TensorShape, sourceShape: TensorShape) -> TensorShape? {
        input == sourceShape ? input : nil
    }

    func forward(input: UnsafePointer<Float>, source: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, count: Int) {
        if alpha == 1 && beta == 1 {
            for i in 0..<count { output[i] = input[i] + source[i] }
        } else {
            for i in 0..<count { output[i] = alpha * input[i] + beta * source[i] }
        }
        activation.apply(output, count: count)
    }
}
