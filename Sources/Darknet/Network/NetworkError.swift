/// Errors of running a network (cfg and weights problems are `CfgError` and `WeightsError`).
public enum NetworkError: Error, Equatable, CustomStringConvertible {
    case inputSize(expected: TensorShape, actualCount: Int)
    case tooMuchMemory(bytesNeeded: Int, limit: Int)
    /// A layer that needs parameters (convolutional, connected, batchnorm, local) has none in
    /// the weights given to `Network`.
    case missingParameters(layer: Int, type: String)
    /// A batch size below 1 or over `Network.maximumBatch`.
    case invalidBatch(Int, maximum: Int)
    /// `forward(batch:)` got `actual` images for a network built for `expected`.
    case batchCount(expected: Int, actual: Int)
    /// A batched input must hold `batch` images of `expected` (image after image, CHW each).
    case batchInputSize(batch: Int, expected: TensorShape, actualCount: Int)
    /// `ExecutionOptions.threads` over `ExecutionOptions.maximumThreads`.
    case tooManyThreads(Int, maximum: Int)
    /// `ExecutionOptions.gemm` is `onednn` and oneDNN is missing or failed its self-check: the
    /// reason names what to install.
    case oneDNNUnavailable(reason: String)

    public var description: String {
        switch self {
        case .inputSize(let expected, let actual):
            return "network input must be \(expected.channels)×\(expected.height)×\(expected.width) = \(expected.count) floats, got \(actual)"
        case .tooMuchMemory(let needed, let limit):
            return "the network would need \(needed / (1 << 20)) MiB of activations, over the \(limit / (1 << 20)) MiB limit"
        case .missingParameters(let layer, let type):
            return "layer \(layer) [\(type)] has no parameters in the weights given to the network"
        case .invalidBatch(let batch, let maximum):
            return "batch size must be 1...\(maximum), got \(batch)"
        case .batchCount(let expected, let actual):
            return "the network runs batches of \(expected) images, got \(actual)"
        case .batchInputSize(let batch, let expected, let actual):
            return "network input must be \(batch) images of \(expected.channels)×\(expected.height)×\(expected.width) = \(batch * expected.count) floats, got \(actual)"
        case .tooManyThreads(let threads, let maximum):
            return "threads must be 1...\(maximum), got \(threads)"
        case .oneDNNUnavailable(let reason):
            return "f32 on oneDNN cannot run: \(reason)"
        }
    }
}
