import Foundation

/// Darknet's activations (`activations.h` of pjreddie's darknet), applied element-wise in place.
///
/// Each formula is darknet's `*_activate`; where darknet computes in double (`exp`, the `.1`
/// of leaky), so do we, then round to Float, so outputs match bit for bit or within an ulp.
public enum Activation: String, Sendable, CaseIterable {
    case linear, leaky, relu, logistic, tanh, elu, selu, relie, ramp, plse, stair, hardtan, lhtan, loggy

    init(cfgName: String, location: CfgLocation) throws {
        guard let value = Activation(rawValue: cfgName.lowercased()) else {
            throw CfgError.invalidValue(location, value: cfgName,
                                        expected: "one of " + Activation.allCases.map(\.rawValue).joined(separator: ", "))
        }
        self = value
    }

    /// Applies the activation in place to `count` floats.
    public func apply(_ x: UnsafeMutablePointer<Float>, count: Int) {
        switch self {
        case .linear:
            return
        case .leaky:
            // darknet: (x>0) ? x : .1*x  (.1 is a double literal)
            for i in 0..<count where x[i] <= 0 { x[i] = Float(0.1 * Double(x[i])) }
        case .relu:
            for i in 0..<count where !(x[i] > 0) { x[i] = 0 }
        default:
            for i in 0..<count { x[i] = value(x[i]) }
        }
    }

    /// The scalar formula (the reference for `apply`).
    public func value(_ x: Float) -> Float {
        let d = Double(x)
        switch self {
        case .linear: return x
        case .leaky: return x > 0 ? x : Float(0.1 * d)
        case .relu: return x > 0 ? x : 0
        case .logistic: return Float(1.0 / (1.0 + exp(-d)))
        case .tanh: return Float(Foundation.tanh(d))  // darknet's (e^2x-1)/(e^2x+1), without its NaN for x > 354
        case .elu: return Float((x >= 0 ? d : 0) + (x < 0 ? 1 : 0) * (exp(d) - 1))
        case .selu: return Float((x >= 0 ? 1 : 0) * 1.0507 * d + (x < 0 ? 1 : 0) * 1.0507 * 1.6732 * (exp(d) - 1))
        case .relie: return x > 0 ? x : Float(0.01 * d)
        case .ramp: return Float(d * (x > 0 ? 1 : 0) + 0.1 * d)
        case .plse:
            if x < -4 { return Float(0.01 * (d + 4)) }
            if x > 4 { return Float(0.01 * (d - 4) + 1) }
            return Float(0.125 * d + 0.5)
        case .stair:
            let n = Int(floor(d))
            if n % 2 == 0 { return Float(floor(d / 2)) }
            return Float((d - Double(n)) + floor(d / 2))
        case .hardtan: return x < -1 ? -1 : (x > 1 ? 1 : x)
        case .lhtan:
            if x < 0 { return Float(0.001 * d) }
            if x > 1 { return Float(0.001 * (d - 1) + 1) }
            return x
        case .loggy: return Float(2.0 / (1.0 + exp(-d)) - 1)
        }
    }
}
