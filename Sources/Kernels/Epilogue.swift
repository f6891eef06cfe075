/// What every convolution ends with, on each finished output row or plane: darknet's
/// `add_bias` + `activate_array`, then the fused `[shortcut]`'s addition.
package struct Epilogue {
    /// One bias per filter.
    package var biases: UnsafePointer<Float>
    package var activation: Activation
    /// Added after the activation, laid out as the output (the source of a `[shortcut]` that
    /// follows the convolution, computed here instead of in a second pass); nil for none.
    package var residual: UnsafePointer<Float>?

    package init(biases: UnsafePointer<Float>, activation: Activation, residual: UnsafePointer<Float>? = nil) {
        (self.biases, self.activation, self.residual) = (biases, activation, residual)
    }

    /// Finishes `count` contiguous outputs of `filter` starting at `start`, whose offset from
    /// the output's first float is `offset` (where the residual's matching floats are).
    @inline(__always)
    package func finish(_ start: UnsafeMutablePointer<Float>, count: Int, filter: Int, offset: Int) {
        Self.biasActivation(start, count: count, bias: biases[filter], activation: activation,
                            adding: residual.map { $0 + offset })
    }

    /// `x = activation(x + bias)` over `count` contiguous floats, then `x = x + residual[i]`.
    /// Linear, leaky and relu in one pass; logistic adds, then runs `Logistic`'s kernel; the
    /// others add, then call `Activation.apply`. Bit for bit `reference`'s values.
    @inline(__always)
    package static func biasActivation(_ plane: UnsafeMutablePointer<Float>, count: Int, bias: Float,
                                       activation: Activation, adding residual: UnsafePointer<Float>? = nil) {
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
            activation.apply(plane, count: count, threads: 1)  // the epilogue's callers already split
        }
        if let residual {
            for i in 0..<count { plane[i] = plane[i] + residual[i] }
        }
    }

    /// The naive epilogue, element by element from darknet's definitions (`add_bias`, then
    /// `Activation.value`, then the shortcut's sum): the reference `biasActivation` is tested against.
    package static func reference(_ plane: UnsafeMutablePointer<Float>, count: Int, bias: Float, activation: Activation,
                                  adding residual: UnsafePointer<Float>? = nil) {
        for i in 0..<count {
            plane[i] = activation.value(plane[i] + bias)
            if let residual { plane[i] = plane[i] + residual[i] }
        }
    }
}
