import Foundation
import Kernels

/// Where a convolution's time goes (`Kernels.ConvolutionPhases`): im2col (or Winograd's input
/// transform), GEMM, epilogue (or Winograd's output transform).
public typealias ConvolutionPhases = Kernels.ConvolutionPhases

/// Wall-clock time of one layer in one profiled forward pass.
public struct LayerTime: Sendable, Hashable {
    /// Index of the layer in `ModelDescription.layers`.
    public var layer: Int
    /// Seconds from the layer's start to its end (its output is complete).
    public var seconds: Double
    /// The split of `seconds` for a `[convolutional]` layer; nil for other layers.
    public var phases: ConvolutionPhases?
}

/// One forward pass measured layer by layer (`Network.profile(_:)`).
public struct ForwardProfile: Sendable {
    /// What `forward(_:)` returns for the same input.
    public var outputs: [Network.LayerOutput]
    /// One entry per layer, in layer order.
    public var layers: [LayerTime]
    /// Seconds of the whole pass, output copies included.
    public var seconds: Double
}

extension Network {
    /// Runs one forward pass like `forward(_:)` (same outputs) while timing every layer and,
    /// inside each convolution, its im2col / GEMM / epilogue phases: a CPU counterpart of
    /// AlexeyAB darknet's GPU-only `-benchmark_layers`.
    ///
    /// Costs two clock reads per layer and three per convolution group; `forward(_:)` reads
    /// no clock at all. `input` is `channels × height × width` of `[net]`, CHW.
    public func profile(_ input: [Float]) throws -> ForwardProfile {
        let start = ProfileClock.now()
        var times: [LayerTime]? = []
        times?.reserveCapacity(model.layers.count)
        let outputs = try pass(input, observer: nil, times: &times)
        let end = ProfileClock.now()
        return ForwardProfile(outputs: outputs, layers: times ?? [], seconds: ProfileClock.seconds(from: start, to: end))
    }
}
