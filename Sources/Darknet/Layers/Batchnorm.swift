import Foundation
import Kernels

/// `[batchnorm]`: shape unchanged; each channel `c` becomes
/// `scale[c] · (x − mean[c]) / (sqrt(variance[c]) + .000001) + bias[c]` (pjreddie's
/// `forward_batchnorm_layer` at inference: `normalize_cpu`, `scale_bias`, and `add_bias` with
/// biases that its weights file does not hold, so zero). pjreddie's file holds scales,
/// rolling mean, rolling variance (`C` floats each); AlexeyAB's holds biases first and divides
/// by `sqrt(variance + .00001)` (`fold`). They are folded at load into a per-channel factor
/// and offset (`BatchnormWeights`). No keys.
public struct Batchnorm: Sendable, Hashable {
    static let keys: Set<String> = []
    /// The cfg's dialect's folding, which also says whether the file holds biases.
    public var fold: BatchNormFold = .pjreddie

    public init(fold: BatchNormFold = .pjreddie) { self.fold = fold }

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
        ParsedLayer(kind: .batchnorm(Batchnorm(fold: context.dialect.batchNormFold)), input: context.input, output: context.input)
    }

    func weightsParts(_ layer: Layer, next: Layer?) -> [WeightsPart] {
        let n = layer.input.channels
        return (fold == .alexeyAB ? [.biases(n)] : []) + WeightsPart.batchNorm(n)
    }

    func weights(_ layer: Layer, from arrays: consuming [[Float]], transposed: Bool) -> LayerWeights? {
        let n = layer.input.channels
        let parts = arrays
        let statistics = fold == .alexeyAB ? Array(parts.dropFirst()) : parts
        let biases = fold == .alexeyAB ? parts[0] : [Float](repeating: 0, count: n)
        let (factors, offsets) = ConvolutionWeights.foldingFactors(biases: biases, scales: statistics[0], rollingMean: statistics[1],
                                                                   rollingVariance: statistics[2], fold: fold)
        return .batchnorm(BatchnormWeights(scales: factors.map { Float($0) }, offsets: offsets))
    }

    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        guard case .batchnorm(let weights) = run.weights else { preconditionFailure("batchnorm \(run.layer.index) has no weights") }
        forward(input: run.input, shape: run.stacked(run.layer.output), output: run.output, weights: weights)
    }

    /// `make_batchnorm_layer`'s line.
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String {
        let i = layer.input
        return String(format: "Batch Normalization Layer: %d x %d x %d image", i.width, i.height, i.channels)
    }
}
