import Kernels

/// `[batchnorm]`: shape unchanged; each channel `c` becomes
/// `scale[c] · (x − mean[c]) / (sqrt(variance[c]) + .000001)` (darknet's
/// `forward_batchnorm_layer` at inference: `normalize_cpu`, `scale_bias`, and `add_bias` with
/// biases that the weights file does not hold, so zero). The weights file holds scales,
/// rolling mean, rolling variance (`C` floats each); they are folded at load into a per-channel
/// factor and offset (`BatchnormWeights`). No keys.
public struct Batchnorm: Sendable, Hashable {
    static let keys: Set<String> = []

    public init() {}

    func forward(input: UnsafePointer<Float>, shape: TensorShape, output: UnsafeMutablePointer<Float>,
                 weights: BatchnormWeights) {
        let plane = shape.height * shape.width
        for c in 0..<shape.channels {
            let factor = weights.scales[c], offset = weights.offsets[c]
            for i in (c * plane)..<((c + 1) * plane) { output[i] = input[i] * factor + offset }
        }
    }
}

/// A `[batchnorm]` layer's parameters folded per channel: `x · scales[c] + offsets[c]`, with
/// `scales[c] = scale / (sqrt(variance) + .000001)` and `offsets[c] = −mean · scales[c]`
/// (computed in double, as `ConvolutionWeights.folding`).
public struct BatchnormWeights: Sendable {
    public var scales: [Float]
    public var offsets: [Float]

    public init(scales: [Float], offsets: [Float]) {
        self.scales = scales
        self.offsets = offsets
    }
}

extension Batchnorm: LayerType {
    static let sectionNames = ["batchnorm"]
    static let honouredKeys: Set<String> = []

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        ParsedLayer(kind: .batchnorm(Batchnorm()), input: context.input, output: context.input)
    }

    func weightsParts(_ layer: Layer, next: Layer?) -> [WeightsPart] { WeightsPart.batchNorm(layer.input.channels) }

    func weights(_ layer: Layer, from arrays: consuming [[Float]], transposed: Bool) -> LayerWeights? {
        let n = layer.input.channels
        let (factors, offsets) = ConvolutionWeights.foldingFactors(biases: [Float](repeating: 0, count: n), scales: arrays[0],
                                                                   rollingMean: arrays[1], rollingVariance: arrays[2])
        return .batchnorm(BatchnormWeights(scales: factors.map { Float($0) }, offsets: offsets))
    }

    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        guard case .batchnorm(let weights) = run.weights else { preconditionFailure("batchnorm \(run.layer.index) has no weights") }
        forward(input: run.input, shape: run.stacked(run.layer.output), output: run.output, weights: weights)
    }
}
