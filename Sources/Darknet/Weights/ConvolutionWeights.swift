import Kernels

/// How a darknet applies batch-norm statistics at inference, which folding reproduces.
public enum BatchNormFold: Sendable, Hashable {
    /// pjreddie: `scale · (x − mean) / (sqrt(variance) + .000001) + bias` (`normalize_cpu`).
    case pjreddie
    /// AlexeyAB: `fuse_conv_batchnorm` before `detector test` (and his `normalize_cpu`) divide by
    /// `sqrt(variance + .00001)`: `bias − scale · mean / sqrt(variance + .00001)`. With the small
    /// variances of trained models the two differ by far more than rounding.
    case alexeyAB
}

/// A convolution's parameters as darknet stores them, batch norm folded in (what
/// `PreparedConvolution` puts in its method's layout): `weights · f` and the folded bias, with
/// `f = scale / (sqrt(variance) + .000001)` (pjreddie) or `scale / sqrt(variance + .00001)`
/// (AlexeyAB, `BatchNormFold`), computed in double.
public struct ConvolutionWeights: Sendable {
    /// `filters × (C/groups) × size × size`.
    public var weights: [Float]
    /// `filters`.
    public var biases: [Float]

    public init(weights: [Float], biases: [Float]) {
        self.weights = weights
        self.biases = biases
    }

    /// Bytes held.
    public var bytes: Int { (weights.count + biases.count) * MemoryLayout<Float>.stride }

    /// Folds batch-norm statistics (`scales`, `rollingMean`, `rollingVariance`, each `filters` long).
    /// `weights` is consumed: when the caller hands over its only reference (the weights
    /// reader does), the folding happens in place instead of in a copy of the layer.
    public static func folding(weights: consuming [Float], biases: [Float], scales: [Float],
                               rollingMean: [Float], rollingVariance: [Float], fold: BatchNormFold = .pjreddie,
                               threads: Int = 1) -> ConvolutionWeights {
        let filters = biases.count
        var folded = consume weights
        let perFilter = filters > 0 ? folded.count / filters : 0
        let (factors, foldedBiases) = foldingFactors(biases: biases, scales: scales, rollingMean: rollingMean,
                                                     rollingVariance: rollingVariance, fold: fold)
        // Filters split across workers: one pass over the layer's weights (yolov3: 62M floats).
        folded.withUnsafeMutableBufferPointer { weights in
            nonisolated(unsafe) let weights = weights
            factors.withUnsafeBufferPointer { factors in
                nonisolated(unsafe) let factors = factors
                Parallel.forChunks(of: filters, work: filters * perFilter, threads: threads) { range in
                    for f in range {
                        let factor = factors[f]
                        for i in (f * perFilter)..<((f + 1) * perFilter) {
                            weights[i] = Float(Double(weights[i]) * factor)
                        }
                    }
                }
            }
        }
        return ConvolutionWeights(weights: folded, biases: foldedBiases)
    }

    /// Each filter's factor and folded bias, in double: what `folding` applies (a weight
    /// becomes `Float(Double(w) · f)`). pjreddie: `f = scale / (sqrt(variance) + .000001)`,
    /// bias `bias − mean · f`; AlexeyAB (`fuse_conv_batchnorm`): `f = scale / sqrt(variance + .00001)`,
    /// bias `bias − scale · mean / sqrt(variance + .00001)`.
    static func foldingFactors(biases: [Float], scales: [Float], rollingMean: [Float], rollingVariance: [Float],
                               fold: BatchNormFold = .pjreddie) -> (factors: [Double], biases: [Float]) {
        var factors = [Double](repeating: 0, count: biases.count)
        var folded = biases
        for f in 0..<biases.count {
            switch fold {
            case .pjreddie:
                let factor = Double(scales[f]) / (Double(rollingVariance[f]).squareRoot() + Double(Float(0.000001)))
                factors[f] = factor
                folded[f] = Float(Double(biases[f]) - Double(rollingMean[f]) * factor)
            case .alexeyAB:
                let root = (Double(rollingVariance[f]) + 0.00001).squareRoot()
                factors[f] = Double(scales[f]) / root
                folded[f] = Float(Double(biases[f]) - Double(scales[f]) * Double(rollingMean[f]) / root)
            }
        }
        return (factors, folded)
    }
}
