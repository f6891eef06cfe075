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

    public init(weights: [Float], biases: [Float]) {
        self.weights = weights
        self.biases = biases
    }

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
