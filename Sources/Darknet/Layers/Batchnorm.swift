/// `[batchnorm]`: shape unchanged; each channel `c` becomes
/// `scale[c] · (x − mean[c]) / (sqrt(variance[c]) + .000001)` (darknet's
/// `forward_batchnorm_layer` at inference: `normalize_cpu`, `scale_bias`, and `add_bias` with
/// biases that the weights file does not hold, so zero). The weights file holds scales,
/// rolling mean, rolling variance (`C` floats each); they are folded at load into a per-channel
/// factor (`ConvolutionWeights.weights`, `C`) and offset (`.biases`, `C`). No keys.
public struct Batchnorm: Sendable, Hashable {
    static let keys: Set<String> = []

    public init() {}

    func forward(input: UnsafePointer<Float>, shape: TensorShape, output: UnsafeMutablePointer<Float>,
                 weights: ConvolutionWeights) {
        let plane = shape.height * shape.width
        for c in 0..<shape.channels {
            let factor = weights.weights[c], offset = weights.biases[c]
            for i in (c * plane)..<((c + 1) * plane) { output[i] = input[i] * factor + offset }
        }
    }
}
