#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Darknet's activations, applied element-wise in place: pjreddie's `activations.h` (linear …
/// loggy) plus AlexeyAB's additions (relu6, gelu, mish, swish, hard_mish).
///
/// Each formula is darknet's `*_activate`; where darknet computes in double (`exp`, the `.1`
/// of leaky), so do we, then round to Float, so outputs match bit for bit or within an ulp.
/// AlexeyAB's are computed in Float as its `activations.c` does (`mish` uses its softplus
/// with threshold 20: `x` above 20, `exp(x)` below −20, else `log(exp(x) + 1)`, and its
/// tanh `2/(1 + exp(−2y)) − 1`).
///
/// `logistic` in a cfg of AlexeyAB's dialect is `alexeyABLogistic`, his Float formula (the
/// parser decides; it is no cfg name of its own).
public enum Activation: String, Sendable, CaseIterable {
    case linear, leaky, relu, logistic, tanh, elu, selu, relie, ramp, plse, stair, hardtan, lhtan, loggy
    case relu6, gelu, mish, swish
    case hardMish = "hard_mish"
    case alexeyABLogistic = "logistic (AlexeyAB)"

    /// The name a cfg gives it: `logistic` for both logistics.
    public var cfgName: String { self == .alexeyABLogistic ? Activation.logistic.rawValue : rawValue }

    /// Applies the activation in place to `count` floats. The formulas with `exp`, `tanh` or
    /// `log` (about 10 ns an element) are split across up to `threads` workers when there are
    /// enough elements; each element is computed the same way whatever the split. Callers
    /// already inside a parallel loop pass 1. The logistic is `Logistic`'s vector kernel.
    package func apply(_ x: UnsafeMutablePointer<Float>, count: Int, threads: Int) {
        switch self {
        case .linear:
            return
        case .leaky:
            for i in 0..<count { x[i] = Activation.leaky(x[i]) }
        case .relu:
            for i in 0..<count where !(x[i] > 0) { x[i] = 0 }
        case .logistic:
            Logistic.apply(x, x, count: count, threads: threads)
        case .alexeyABLogistic:
            AlexeyABLogistic.apply(x, x, count: count, threads: threads)
        default:
            Parallel.forChunks(of: count, work: count * 8, threads: threads) { range in
                for i in range { x[i] = value(x[i]) }
            }
        }
    }

    /// True when the formula never decreases as `x` grows, for every Float: linear, leaky (`x`
    /// or `x / 10`, both rounded monotonically) and relu. Then the max of the activated values
    /// is the activation of the max, which lets a pooled convolution finish only the pooled
    /// values (`Epilogue.finishPooled`). The formulas through libm (`exp`, `tanh`, `log`) are
    /// left out: libm does not promise monotonic results.
    package var isNondecreasing: Bool { self == .linear || self == .leaky || self == .relu }

    /// darknet's leaky ReLU, `(x>0) ? x : .1*x` with `.1` a double literal, so `Float(0.1 · Double(x))`
    /// at or below 0: computed as the Float division `x / 10`, which gives the same bits for every
    /// Float (`ActivationTests` checks all 2³¹ at or below 0) and vectorises without the round trip
    /// through Double (0.31 → 0.23 ns an element with the bias added, one core, Zen 4). `x · 0.1`
    /// in Float would differ for a fifth of all Floats.
    @inline(__always)
    package static func leaky(_ x: Float) -> Float { x > 0 ? x : x / 10 }

    /// libm's `tanh` (the enum's own `.tanh` case shadows the name inside it).
    @inline(__always)
    static func libmTanh(_ x: Double) -> Double {
        #if canImport(Glibc)
        Glibc.tanh(x)
        #else
        Darwin.tanh(x)
        #endif
    }

    /// The scalar formula (the reference for `apply`).
    public func value(_ x: Float) -> Float {
        let d = Double(x)
        switch self {
        case .linear: return x
        case .leaky: return x > 0 ? x : Float(0.1 * d)
        case .relu: return x > 0 ? x : 0
        case .logistic: return Float(1.0 / (1.0 + exp(-d)))
        case .tanh: return Float(Self.libmTanh(d))  // darknet's (e^2x-1)/(e^2x+1), without its NaN for x > 354
        case .elu: return Float((x >= 0 ? d : 0) + (x < 0 ? 1 : 0) * (exp(d) - 1))
        case .selu: return Float((x >= 0 ? 1 : 0) * 1.0507 * d + (x < 0 ? 1 : 0) * 1.0507 * 1.6732 * (exp(d) - 1))
        case .relie: return x > 0 ? x : Float(0.01 * d)
        case .ramp: return Float(d * (x > 0 ? 1 : 0) + 0.1 * d)
        case .plse:
            if x < -4 { return Float(0.01 * (d + 4)) }
            if x > 4 { return Float(0.01 * (d - 4) + 1) }
            return Float(0.125 * d + 0.5)
        case .stair:
            // darknet's `int n = floor(x)` is undefined beyond Int32; Debian's libdarknet.so
            // (tools/oracle) answers as if n were INT_MAX below −2³¹ and INT_MIN (even) above 2³¹
            // and for NaN. `x - n` is a Float subtraction (exact when n is in range).
            let whole = floor(d)
            let n: Int32 = whole >= -0x1p31 && whole < 0x1p31 ? Int32(whole) : (whole < 0 ? .max : .min)
            if n % 2 == 0 { return Float(floor(d / 2)) }
            return Float(Double(x - Float(n)) + floor(d / 2))
        case .hardtan: return x < -1 ? -1 : (x > 1 ? 1 : x)
        case .lhtan:
            if x < 0 { return Float(0.001 * d) }
            if x > 1 { return Float(0.001 * (d - 1) + 1) }
            return x
        case .loggy: return Float(2.0 / (1.0 + exp(-d)) - 1)
        case .relu6: return min(max(x, 0), 6)
        case .gelu:
            // AlexeyAB: 0.5f*x*(1 + tanhf(0.797885f*x + 0.035677f*powf(x, 3)))
            return 0.5 * x * (1 + tanhf(0.797885 * x + 0.035677 * powf(x, 3)))
        case .mish:
            // AlexeyAB: x * tanh_activate(softplus_activate(x, MISH_THRESHOLD = 20)), his tanh
            // `2/(1 + expf(-2y)) - 1` and softplus `logf(expf(x) + 1)`, not tanhf and log1pf.
            let softplus: Float = x > 20 ? x : (x < -20 ? expf(x) : logf(expf(x) + 1))
            return x * (2 / (1 + expf(-2 * softplus)) - 1)
        case .alexeyABLogistic:
            // AlexeyAB: 1.f/(1.f + expf(-x)), glibc's expf as its FMA build computes it
            return AlexeyABLogistic.reference(x)
        case .swish:
            // AlexeyAB: x * logistic_activate(x), logistic = 1/(1 + expf(-x))
            return x * (1 / (1 + expf(-x)))
        case .hardMish:
            // AlexeyAB: x > 0 ? x : (x > -2 ? x*x/2 + x : 0)
            if x > 0 { return x }
            if x > -2 { return x * x / 2 + x }
            return 0
        }
    }
}
