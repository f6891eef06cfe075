/// The epilogue every convolution method ends with: darknet's `add_bias` + `activate_array`
/// (and a fused `[shortcut]`) in one pass over each finished row or plane.
extension Convolutional {
    /// `x = activation(x + bias)` over `count` contiguous floats: the epilogue of one filter
    /// plane (or row). Linear, leaky and relu in one pass; logistic adds, then runs `Logistic`'s
    /// kernel over the plane; the others add, then call `Activation.apply`. Bit for bit
    /// `epilogueReference`'s values. `residual`: then
    /// `x = x + residual[i]`, the fused `[shortcut]` that follows (`Shortcut.forward`'s sum).
    @inline(__always)
    static func biasActivation(_ plane: UnsafeMutablePointer<Float>, count: Int, bias: Float, activation: Activation,
                               adding residual: UnsafePointer<Float>? = nil) {
        switch activation {
        case .linear:
            for i in 0..<count { plane[i] += bias }
        case .leaky:
            for i in 0..<count { plane[i] = Activation.leaky(plane[i] + bias) }
        case .relu:
            for i in 0..<count {
                let x = plane[i] + bias
                plane[i] = x > 0 ? x : 0
            }
        case .logistic:
            for i in 0..<count { plane[i] += bias }
            Logistic.serial(plane, plane, count: count)
        default:
            for i in 0..<count { plane[i] += bias }
            activation.apply(plane, count: count, parallel: false)  // the epilogue's workers already split
        }
        if let residual {
            for i in 0..<count { plane[i] = plane[i] + residual[i] }
        }
    }

    /// The two-pass epilogue (all biases, then `Activation.apply`): the reference the fused
    /// `biasActivation`, run by the GEMM workers, is tested against.
    static func epilogueReference(_ output: UnsafeMutablePointer<Float>, filters: Int, spatial: Int,
                                  biases: UnsafePointer<Float>, activation: Activation) {
        for f in 0..<filters {
            let plane = output + f * spatial
            for i in 0..<spatial { plane[i] += biases[f] }
            activation.apply(plane, count: spatial)
        }
    }
}
