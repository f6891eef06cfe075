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

    /// The 2×2 stride-2 pool (`Pool2x2.poolRows`) of two rows of `filter`, `rows` and
    /// `rows + width` (`width` even), as darknet computes it: every element finished (bias,
    /// activation), then the first largest of each window's four taps, into `out`
    /// (`width / 2` floats). No residual: a `[shortcut]` is never fused beside a pool.
    ///
    /// With a non-decreasing activation (`Activation.isNondecreasing`) the finished max is the
    /// max of the finished taps, so the raw rows are pooled first and only a quarter of the
    /// values are finished; the rows are left unfinished. The two orders can differ only where
    /// equal values differ in bits, a zero's sign (`+0` and a `−0` from `x / 10` underflowing
    /// or `−0 + −0`), or where no tap beats darknet's starting `−FLT_MAX` (NaN, −∞): windows
    /// whose result is zero, NaN or not above `−FLT_MAX` are computed again darknet's way, so
    /// the bits are always darknet's. Other activations finish both rows in place, then pool.
    @inline(__always)
    package func finishPooled(_ rows: UnsafeMutablePointer<Float>, width: Int, filter: Int,
                              into out: UnsafeMutablePointer<Float>) {
        precondition(residual == nil, "Epilogue.finishPooled: no residual beside a pool")
        let bias = biases[filter], half = width / 2
        guard activation.isNondecreasing else {
            Self.biasActivation(rows, count: 2 * width, bias: bias, activation: activation)
            Pool2x2.poolRows(rows, width: width, into: out)
            return
        }
        Pool2x2.poolRows(rows, width: width, into: out)
        Self.biasActivation(out, count: half, bias: bias, activation: activation)
        let lowest = -Float.greatestFiniteMagnitude
        /// Recomputes the windows from `x` to `end` whose result needs it.
        func recompute(_ x: Int, _ end: Int) {
            for x in x..<end where out[x] == 0 || !(out[x] > lowest) {
                var best = lowest
                for tap in 0..<4 {   // Pool2x2.maxOfWindow's order: top left, top right, bottom left, bottom right
                    let value = activation.value(rows[2 * x + tap / 2 * width + tap % 2] + bias)
                    if value > best { best = value }
                }
                out[x] = best
            }
        }
        // Eight results checked at once on their bits (a scalar scan took half the time of the
        // whole pool): a lane's sign bit ends up set when it is ±0, NaN, −FLT_MAX or −∞.
        var flags = SIMD8<Int32>(repeating: 0)
        var x = 0
        while x + 8 <= half {
            let bits = unsafeBitCast(UnsafeRawPointer(out + x).loadUnaligned(as: SIMD8<Float>.self), to: SIMD8<Int32>.self)
            let magnitude = bits & 0x7FFF_FFFF
            flags |= (magnitude &- 1) | (0x7F80_0000 &- magnitude) | (bits & (0x7F7F_FFFE &- magnitude))
            x += 8
        }
        if flags.min() < 0 { recompute(0, x) }
        recompute(x, half)
    }

    /// `x = activation(x + bias)` over `count` contiguous floats, then `x = x + residual[i]`.
    /// Linear, leaky and relu in one pass; the logistics add, then run their kernels (`Logistic`,
    /// `AlexeyABLogistic`); the others add, then call `Activation.apply`. Bit for bit
    /// `reference`'s values.
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
        case .alexeyABLogistic:
            for i in 0..<count { plane[i] += bias }
            AlexeyABLogistic.serial(plane, plane, count: count)
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
