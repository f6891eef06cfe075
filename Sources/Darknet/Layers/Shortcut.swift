import Foundation
import Kernels

/// `[shortcut]`: `output = alpha · previous + beta · layers[from]`, then `activation`
/// (darknet's `shortcut_cpu` with `s1 = alpha`, `s2 = beta`, both 1 by default; activation
/// linear by default). Input and output are the previous layer's `C×H×W`.
///
/// `from` may have another shape `C1×H1×W1` (pjreddie's `shortcut_cpu`): with
/// `stride = max(1, W1/W)` and `sample = max(1, W/W1)` (the same ratios for H), over
/// `min(C, C1) × min(H, H1) × min(W, W1)` positions `out[k][j·sample][i·sample] =
/// alpha · out + beta · from[k][j·stride][i·stride]`; the other outputs keep the previous
/// layer's value (no alpha). Both ratios must agree between width and height (darknet asserts it).
///
/// AlexeyAB's multi-layer / weighted shortcut (several `from` layers, or `weights_type`
/// `per_feature` (alias `per_layer`) / `per_channel`) is `ShortcutMultilayer.swift`
/// (`shortcut_multilayer_cpu`); there `alpha`/`beta` do not exist (AlexeyAB does not read them).
public struct Shortcut: Sendable, Hashable {
    /// AlexeyAB's `weights_type`: how many weights each added tensor gets.
    public enum WeightsType: String, Sendable, Hashable {
        /// No weights (darknet's default).
        case none
        /// One weight per tensor (`per_feature`, alias `per_layer`): `n + 1` weights.
        case perFeature = "per_feature"
        /// One weight per tensor and channel (`per_channel`): `(n + 1) · C` weights.
        case perChannel = "per_channel"
    }

    /// AlexeyAB's `weights_normalization` (only read with weights).
    public enum Normalization: String, Sendable, Hashable {
        case none
        /// `lrelu(w) / (0.0001 + Σ lrelu(w_i))` with `lrelu(w) = max(w, 0.001)` (alias `avg_relu`;
        /// AlexeyAB's inference-time `fuse_conv_batchnorm`).
        case relu
        /// `exp(w − max) / (0.0001 + Σ exp(w_i − max))`.
        case softmax
    }

    /// Absolute index of the (first) added layer.
    public var source: Int
    public var activation: Activation
    public var alpha: Float
    public var beta: Float
    /// Absolute indices of every added layer (`[source]` unless `from` lists several).
    public var sources: [Int]
    public var weightsType: WeightsType = .none
    public var normalization: Normalization = .none
    /// The output shapes of `sources`, in order (for AlexeyAB's table, which names the ones
    /// that differ from the previous layer's).
    public var sourceShapes: [TensorShape] = []

    static let keys: Set<String> = ["from", "activation", "alpha", "beta", "weights_type", "weights_normalization"]
    /// Keys read and honoured; the other `keys` are training-only (ignored) or `rejectedKeys`.
    static let honouredKeys: Set<String> = ["from", "activation", "alpha", "beta", "weights_type", "weights_normalization"]
    /// Keys that are a typed error (naming key and line) unless darknet's default, with a value that triggers it.
    static let rejectedKeys: [String: String] = [:]

    /// True for AlexeyAB's `shortcut_multilayer_cpu` path (several sources or weights).
    public var isMultilayer: Bool { sources.count > 1 || weightsType != .none }

    /// Weights the `.weights` file holds for this layer after the previous layers' (AlexeyAB's
    /// `load_shortcut_weights`): `n + 1` per feature, `(n + 1) · C` per channel, else 0.
    public func weightCount(channels: Int) -> Int {
        switch weightsType {
        case .none: return 0
        case .perFeature: return sources.count + 1
        case .perChannel: return (sources.count + 1) * channels
        }
    }

    static func parse(_ section: CfgSection, index: Int) throws -> Shortcut {
        guard let from = try section.intList("from"), !from.isEmpty else {
            throw CfgError.missingKey(CfgLocation(file: section.file, line: section.line, section: section.name, key: "from"))
        }
        var sources: [Int] = []
        for value in from {
            let absolute = value < 0 ? index + value : value
            guard absolute >= 0, absolute < index else {
                throw CfgError.layerReference(section.location("from"), layer: index, index: value, available: index)
            }
            sources.append(absolute)
        }
        let typeName = section.string("weights_type", default: "none")
        let weightsType: WeightsType
        switch typeName {
        case "none": weightsType = .none
        case "per_feature", "per_layer": weightsType = .perFeature
        case "per_channel": weightsType = .perChannel
        default:
            throw CfgError.invalidValue(section.location("weights_type"), value: typeName,
                                        expected: "none, per_feature, per_layer or per_channel")
        }
        let normalizationName = section.string("weights_normalization", default: "none")
        var normalization: Normalization
        switch normalizationName {
        case "none": normalization = .none
        case "relu", "avg_relu": normalization = .relu
        case "softmax": normalization = .softmax
        default:
            throw CfgError.invalidValue(section.location("weights_normalization"), value: normalizationName,
                                        expected: "none, relu, avg_relu or softmax")
        }
        if weightsType == .none { normalization = .none }  // AlexeyAB: no weights, nothing to normalize
        let activation = try Activation(cfgName: section.string("activation", default: "linear"),
                                        location: section.location("activation"))
        var shortcut = Shortcut(source: sources[0], activation: activation,
                                alpha: try section.float("alpha", default: 1), beta: try section.float("beta", default: 1))
        shortcut.sources = sources
        shortcut.weightsType = weightsType
        shortcut.normalization = normalization
        if shortcut.isMultilayer {
            // pjreddie's alpha/beta do not exist in AlexeyAB's multi-layer shortcut: refuse rather than guess.
            for key in ["alpha", "beta"] where try section.float(key, default: 1) != 1 {
                throw CfgError.unsupported(section.location(key), what: "\(key) with several from layers or weights_type")
            }
        }
        return shortcut
    }

    init(source: Int, activation: Activation, alpha: Float, beta: Float) {
        self.source = source
        self.activation = activation
        self.alpha = alpha
        self.beta = beta
        self.sources = [source]
    }

    /// Pure shape inference: the previous layer's shape; nil when `from`'s width and height
    /// ratios to it differ (darknet's `assert(stride == h1/h2)`). Multi-layer: every source
    /// must have the input's width and height (AlexeyAB's `parse_shortcut` asserts it).
    public func outputShape(input: TensorShape, sourceShapes: [TensorShape]) -> TensorShape? {
        if isMultilayer {
            let same = sourceShapes.allSatisfy { $0.width == input.width && $0.height == input.height }
            return same ? input : nil
        }
        guard let sourceShape = sourceShapes.first else { return nil }
        return outputShape(input: input, sourceShape: sourceShape)
    }

    public func outputShape(input: TensorShape, sourceShape: TensorShape) -> TensorShape? {
        guard sourceShape.width / input.width == sourceShape.height / input.height,
              input.width / sourceShape.width == input.height / sourceShape.height else { return nil }
        return input
    }

    /// The different-shape path: `input` is `shape` (the previous layer), `source` is `sourceShape`.
    func forward(input: UnsafePointer<Float>, shape: TensorShape, source: UnsafePointer<Float>, sourceShape: TensorShape,
                 output: UnsafeMutablePointer<Float>, threads: Int) {
        guard shape != sourceShape else {
            return forward(input: input, source: source, output: output, count: shape.count, threads: threads)
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
        activation.apply(output, count: shape.count, threads: threads)
    }

    /// Same shapes: element by element, split across the workers (yolov3's 23 shortcuts add up
    /// to milliseconds on one core; each element's sum is the same whatever the split).
    func forward(input: UnsafePointer<Float>, source: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, count: Int,
                 threads: Int) {
        let (alpha, beta) = (self.alpha, self.beta)
        Parallel.forChunks(of: count, work: count, threads: threads) { range in
            if alpha == 1 && beta == 1 {
                for i in range { output[i] = input[i] + source[i] }
            } else {
                for i in range { output[i] = alpha * input[i] + beta * source[i] }
            }
        }
        activation.apply(output, count: count, threads: threads)
    }
}

extension Shortcut: LayerType {
    static let sectionNames = ["shortcut"]

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        var shortcut = try parse(section, index: context.index)
        shortcut.activation = context.dialect.activation(shortcut.activation)
        let sourceShapes = shortcut.sources.map { context.layers[$0].output }
        shortcut.sourceShapes = sourceShapes
        guard let output = shortcut.outputShape(input: context.input, sourceShapes: sourceShapes) else {
            let listed = zip(shortcut.sources, sourceShapes).map { "layer \($0.0) (\($0.1))" }.joined(separator: ", ")
            throw CfgError.shapeMismatch(section.location("from"), layer: context.index, detail: shortcut.isMultilayer
                ? "shortcut adds \(listed) to the previous layer (\(context.input)); with several from layers or weights all need its width and height"
                : "shortcut adds \(listed) to the previous layer (\(context.input)); their width and height ratios must agree")
        }
        return ParsedLayer(kind: .shortcut(shortcut), input: context.input, output: output)
    }

    var references: [Int] { sources }

    func weightsParts(_ layer: Layer, next: Layer?) -> [WeightsPart] {
        guard weightsType != .none else { return [] }
        return [WeightsPart(name: "shortcut weights", count: weightCount(channels: layer.output.channels), synthetic: (-0.25, 1.25))]
    }

    func weights(_ layer: Layer, from arrays: consuming [[Float]], transposed: Bool) -> LayerWeights? {
        weightsType == .none ? nil : .shortcut(ShortcutWeights(weights: arrays[0]))
    }

    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        if isMultilayer {
            var weights: [Float] = []
            if case .shortcut(let held) = run.weights { weights = held.weights }
            forwardMultilayer(input: run.input, shape: run.layer.output, sources: sources.map { UnsafePointer(run.output(of: $0)) },
                              sourceShapes: sources.map { run.layers[$0].output }, weights: weights, batch: run.batch,
                              output: run.output, threads: run.threads)
        } else {
            forward(input: run.input, shape: run.planes(run.layer.output), source: run.output(of: source),
                    sourceShape: run.planes(run.layers[source].output), output: run.output, threads: run.threads)
        }
    }

    /// His `l.bflops`: `outW · outH · outC · n / 1e9` for `n` sources, twice that with weights
    /// (`make_shortcut_layer`).
    func alexeyABBflops(_ layer: Layer) -> Float {
        let o = layer.output
        let value = AlexeyABTable.bflops(product: [o.width, o.height, o.channels, sources.count])
        return weightsType == .none ? value : value * 2
    }

    /// `make_shortcut_layer`'s line: pjreddie's `res  %3d                ` (the first source) and
    /// the shapes. AlexeyAB's: `Shortcut Layer: ` and `%d, ` for each source, ` wt = %d, wn =
    /// %d, outputs:%4d x%4d x%4d %5.3f BF` (his `WEIGHTS_TYPE_T` and `WEIGHTS_NORMALIZATION_T`
    /// numbers), then `parse_shortcut`'s ` (%4d x%4d x%4d) + (%4d x%4d x%4d) ` line for each
    /// source whose shape differs from the previous layer's.
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String {
        guard dialect == .alexeyAB else { return String(format: "res  %3d                ", source) + layer.tableShapes }
        let types: [WeightsType] = [.none, .perFeature, .perChannel]
        let norms: [Normalization] = [.none, .relu, .softmax]
        let o = layer.output, i = layer.input
        var row = "Shortcut Layer: " + sources.map { "\($0), " }.joined()
        row += String(format: " wt = %d, wn = %d, outputs:%4d x%4d x%4d ", types.firstIndex(of: weightsType) ?? 0,
                      norms.firstIndex(of: normalization) ?? 0, o.width, o.height, o.channels)
        row += AlexeyABTable.bflops(alexeyABBflops(layer))
        for shape in sourceShapes where shape != i {
            row += String(format: "\n (%4d x%4d x%4d) + (%4d x%4d x%4d) ", i.width, i.height, i.channels,
                          shape.width, shape.height, shape.channels)
        }
        return row
    }

    /// `from 33`, `from 5,9` with AlexeyAB's several sources, then a non-linear activation.
    func optionsSummary(_ layer: Layer) -> String {
        "from \(sources.map(String.init).joined(separator: ","))" + (activation == .linear ? "" : " \(activation.cfgName)")
    }
}
