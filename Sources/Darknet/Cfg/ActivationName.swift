import Kernels

/// darknet's activations (`Kernels.Activation`: the formulas, applied in place), named as cfg
/// files name them.
public typealias Activation = Kernels.Activation

extension Activation {
    /// Other names for an activation: `silu` is PyTorch's name for swish, `x·σ(x)`, which
    /// converted models use. (AlexeyAB's and hank-ai's parsers turn any name they do not know,
    /// `silu` included, into ReLU with one line on stderr; an unknown name here is an error.)
    static let aliases: [String: Activation] = ["silu": .swish, "revleaky": .leaky]

    /// The activation a cfg's `activation=` names (any case), or a typed error naming the line.
    init(cfgName: String, location: CfgLocation) throws {
        let name = cfgName.lowercased()
        // `alexeyABLogistic` is no cfg name: the dialect makes it from `logistic`.
        let named = Activation(rawValue: name).flatMap { $0.cfgName == name ? $0 : nil }
        guard let value = named ?? Self.aliases[name] else {
            let names = Activation.allCases.filter { $0.rawValue == $0.cfgName }.map(\.rawValue) + Self.aliases.keys.sorted()
            throw CfgError.invalidValue(location, value: cfgName, expected: "one of " + names.joined(separator: ", "))
        }
        self = value
    }
}
