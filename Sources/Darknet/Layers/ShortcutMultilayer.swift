import Foundation

/// AlexeyAB's multi-layer / weighted `[shortcut]` (blas.c `shortcut_multilayer_cpu`, used by
/// `forward_shortcut_layer` whenever there are weights or several `from` layers).
///
/// Tensors are the previous layer `X₀` (`C×H×W`) and the `from` layers `X₁…Xₙ`
/// (`Cᵢ×H×W`, same width and height). Weights, stored `[(n + 1) × step]` with step 1
/// (`per_feature`) or `C` (`per_channel`), give `w_j = weights[j·step + (per_channel ? k : 0)]`
/// for tensor `j` at channel `k`; normalized per channel as `Normalization` says — the way
/// AlexeyAB's inference does it once at load (network.c `fuse_conv_batchnorm`, called by
/// `load_network` and `detector test`), whose relu is `lrelu(w) = w > 0.001 ? w : 0.001`
/// (training's `shortcut_multilayer_cpu` uses a plain relu instead). Then
/// `out[k] = X₀[k]·w₀ + Σ_{i: k < Cᵢ} Xᵢ[k]·wᵢ` (darknet adds `Xᵢ`'s flat index `src_i`
/// while `src_i < Cᵢ·H·W`, i.e. its first channels), then `activation`. Without weights all
/// `w` are 1. Output `C×H×W`.
extension Shortcut {
    /// The normalized weight of each tensor (previous layer first) at channel `k`.
    func tensorWeights(_ weights: [Float], channel k: Int) -> [Float] {
        let count = sources.count + 1
        guard weightsType != .none else { return [Float](repeating: 1, count: count) }
        let step = weightsType == .perChannel ? weights.count / count : 1
        let offset = weightsType == .perChannel ? k : 0
        let raw = (0..<count).map { weights[$0 * step + offset] }
        let eps: Float = 0.0001
        switch normalization {
        case .none:
            return raw
        case .relu:
            // fuse_conv_batchnorm's lrelu (weights at or below 0.001 count as 0.001), not the training relu.
            let floor: Float = 0.001
            let lrelu = raw.map { $0 > floor ? $0 : floor }
            let sum = lrelu.reduce(eps) { $0 + $1 }
            return lrelu.map { $0 / sum }
        case .softmax:
            let largest = raw.reduce(-Float.greatestFiniteMagnitude) { max($0, $1) }
            let sum = raw.reduce(eps) { $0 + expf($1 - largest) }
            return raw.map { expf($0 - largest) / sum }
        }
    }

    /// `batch` images stored channel-major (`C×batch×H×W`, see `Batch`): `input` is the
    /// previous layer (`shape`), `sources[i]` the `from` layers with `sourceShapes[i]` (same
    /// `H×W`). `output` may alias `input`.
    func forwardMultilayer(input: UnsafePointer<Float>, shape: TensorShape, sources: [UnsafePointer<Float>],
                           sourceShapes: [TensorShape], weights: [Float], batch: Int,
                           output: UnsafeMutablePointer<Float>, threads: Int) {
        let plane = shape.height * shape.width
        for k in 0..<shape.channels {
            let w = tensorWeights(weights, channel: k)
            let adding = sourceShapes.indices.filter { k < sourceShapes[$0].channels }
            for b in 0..<batch {
                let offset = (k * batch + b) * plane
                for p in offset..<(offset + plane) {
                    var value = input[p] * w[0]
                    for i in adding { value += sources[i][p] * w[i + 1] }
                    output[p] = value
                }
            }
        }
        activation.apply(output, count: shape.count * batch, threads: threads)
    }
}

/// A weighted `[shortcut]`'s parameters: `(n + 1)` weights (`per_feature`) or `(n + 1)·C`
/// (`per_channel`), one per input (the previous layer first, then each `from` layer).
public struct ShortcutWeights: Sendable {
    public var weights: [Float]

    public init(weights: [Float]) {
        self.weights = weights
    }
}
