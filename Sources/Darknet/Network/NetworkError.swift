/// Errors of running a network (cfg and weights problems are `CfgError` and `WeightsError`).
public enum NetworkError: Error, Equatable, CustomStringConvertible {
    case inputSize(expected: TensorShape, actualCount: Int)
    case tooMuchMemory(bytesNeeded: Int, limit: Int)

    public var description: String {
        switch self {
        case .inputSize(let expected, let actual):
            return "network input must be \(expected.channels)×\(expected.height)×\(expected.width) = \(expected.count) floats, got \(actual)"
        case .tooMuchMemory(let needed, let limit):
            return "the network would need \(needed / (1 << 20)) MiB of activations, over the \(limit / (1 << 20)) MiB limit"
        }
    }
}
