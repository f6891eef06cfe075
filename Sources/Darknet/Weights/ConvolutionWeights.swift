import Foundation

/// A convolution's parameters ready for inference: batch norm already folded in.
///
/// darknet at inference computes `scale · (conv − mean) / (sqrt(variance) + .000001) + bias`
/// (`normalize_cpu`, `scale_bias`, `add_bias`); folding gives `weights · f` and
/// `bias − mean · f` with `f = scale / (sqrt(variance) + .000001)`, computed in double.
public struct ConvolutionWeights: Sendable {
    /// `filters × (C/groups) × size × size`.
    public var weights: [Float]
    /// `filters`.
    public var biases: [Float]
    /// The weights transformed for Winograd F(4×4, 3×3) (`36 × filters × C`), when the layer
    /// runs Winograd; `weights` is then emptied so the model is not held twice.
    public var winograd: [Float]?

    public init(weights: [Float], biases: [Float]) {
        self.weights = weights
        self.biases = biases
    }

    /// These parameters ready for `method`: transformed (and the plain copy dropped) for
    /// Winograd, unchanged otherwise. Already-transformed parameters stay as they are.
    func prepared(for method: ConvolutionMethod, filters: Int, channels: Int) -> ConvolutionWeights {
        guard method == .winograd, winograd == nil else { return self }
        var result = self
        result.winograd = weights.withUnsafeBufferPointer { Winograd.transformWeights($0, filters: filters, channels: channels) }
        result.weights = []
        return result
    }

    /// Bytes of parameters held (plain or transformed weights, and biases).
    public var bytes: Int { (weights.count + (winograd?.count ?? 0) + biases.count) * MemoryLayout<Float>.stride }

    /// Folds batch-norm statistics (`scales`, `rollingMean`, `rollingVariance`, each `filters` long).
    public static func folding(weights: [Float], biases: [Float], scales: [Float],
                               rollingMean: [Float], rollingVariance: [Float]) -> ConvolutionWeights {
        let filters = biases.count
        let perFilter = filters > 0 ? weights.count / filters : 0
        var folded = weights
        var foldedBiases = biases
        for f in 0..<filters {
            let factor = Double(scales[f]) / (Double(rollingVariance[f]).squareRoot() + Double(Float(0.000001)))
            foldedBiases[f] = Float(Double(biases[f]) - Double(rollingMean[f]) * factor)
            for i in (f * perFilter)..<((f + 1) * perFilter) {
                folded[i] = Float(Double(weights[i]) * factor)
            }
        }
        return ConvolutionWeights(weights: folded, biases: foldedBiases)
    }
}
