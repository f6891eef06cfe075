/// `[shortcut]`: `output = alpha · previous + beta · layers[from]`, then `activation`
/// (darknet's `shortcut_cpu` with `s1 = alpha`, `s2 = beta`, both 1 by default; activation
/// linear by default). Input and output are the previous layer's `C×H×W`.
///
/// `from` may have another shape `C1×H1×W1` (pjreddie's `shortcut_cpu`): with
/// `stride = max(1, W1/W)` and `sample = max(1, W/W1)` (the same ratios for H), over
/// `min(C, C1) × min(H, H1) × min(W, W1)` positions `out[k][j·sample][i·sample] =
/// alpha · out + beta · from[k][j·stride][i·stride]`; the other outputs keep the previous
/// layer's value (no alpha). Both ratios must agree between width and height (darknet asserts it).
public struct Shortcut: Sendable, Hashable {
    /// Absolute index of the added layer.
    public var source: Int
    public var activation: Activation
    public var alpha: Float
    public var beta: Float

    static let keys: Set<String> = ["from", "activation", "alpha", "beta", "weights_type", "weights_normalization"]
    /// Keys read and honoured; the other `keys` are training-only (ignored) or `rejectedKeys`.
    static let honouredKeys: Set<String> = ["from", "activation", "alpha", "beta"]
    /// Keys that are a typed error (naming key and line) unless darknet's default, with a value that triggers it.
    static let rejectedKeys: [String: String] = ["weights_type": "per_feature"]

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

    /// Pure shape inference: the previous layer's shape; nil when `from`'s width and height
    /// ratios to it differ (darknet's `assert(stride == h1/h2)`).
    public func outputShape(input: TensorShape, sourceShape: TensorShape) -> TensorShape? {
        guard sourceShape.width / input.width == sourceShape.height / input.height,
              input.width / sourceShape.width == input.height / sourceShape.height else { return nil }
        return input
    }

    /// The different-shape path: `input` is `shape` (the previous layer), `source` is `sourceShape`.
    func forward(input: UnsafePointer<Float>, shape: TensorShape, source: UnsafePointer<Float>, sourceShape: TensorShape,
                 output: UnsafeMutablePointer<Float>) {
        guard shape != sourceShape else {
            return forward(input: input, source: source, output: output, count: shape.count)
        }
        let (w1, h1, c1) = (sourceShape.width, sourceShape.height, sourceShape.channels)
        let (w2, h2, c2) = (shape.width, shape.height, shape.channels)
        let stride = max(1, w1 / w2), sample = max(1, w2 / w1)
        if output != UnsafeMutablePointer(mutating: input) { output.update(from: input, count: shape.count) }
        for k in 0..<min(c1, c2) {
            for j in 0..<min(h1, h2) {
                for i in 0..<min(w1, w2) {
                    let outIndex = i * sample + w2 * (j * sample + h2 * k)
                    let addIndex = i * stride + w1 * (j * stride + h1 * k)
                    output[outIndex] = alpha * output[outIndex] + beta * source[addIndex]
                }
            }
        }
        activation.apply(output, count: shape.count)
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
