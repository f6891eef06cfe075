import Kernels

/// darknet's activations (`Kernels.Activation`: the formulas, applied in place), named as cfg
/// files name them.
public typealias Activation = Kernels.Activation

extension Activation {
    /// The activation a cfg's `activation=` names (any case), or a typed error naming the line.
    init(cfgName: String, location: CfgLocation) throws {
        guard let value = Activation(rawValue: cfgName.lowercased()) else {
            throw CfgError.invalidValue(location, value: cfgName,
                                        expected: "one of " + Activation.allCases.map(\.rawValue).joined(separator: ", "))
        }
        self = value
    }
}
