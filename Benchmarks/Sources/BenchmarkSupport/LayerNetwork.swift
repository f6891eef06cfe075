import Benchmark
import Darknet

/// A `Network` built from cfg text with deterministic synthetic weights
/// (`SyntheticWeights.bytes(for:seed:)` read back through `WeightsReader`, as a real file is).
public func syntheticNetwork(cfg: String, name: String, seed: UInt64 = 1) throws -> Network {
    let model = try ModelDescription(text: cfg, file: name)
    return try syntheticNetwork(model: model, seed: seed)
}

/// `model` with deterministic synthetic weights.
public func syntheticNetwork(model: ModelDescription, seed: UInt64 = 1) throws -> Network {
    try Network(model: model, weights: syntheticWeights(model: model, seed: seed))
}

/// Deterministic synthetic weights for `model`, folded as a real file's are.
public func syntheticWeights(model: ModelDescription, seed: UInt64 = 1) throws -> ModelWeights {
    let bytes = SyntheticWeights.bytes(for: model, seed: seed)
    return try bytes.withUnsafeBytes { try WeightsReader.read($0, file: model.file, for: model) }
}

/// A network set up to time one of its layers on a fixed input.
public struct LayerUnderTest {
    public let network: Network
    /// The layer timed; the layers before it only produce its inputs.
    public let index: Int
    /// `network.model.inputShape` floats (`SyntheticWeights.input`, the goldens' input).
    public let input: [Float]

    public init(network: Network, index: Int) {
        self.network = network
        self.index = index
        self.input = SyntheticWeights.input(network.model.inputShape)
    }

    public var layer: Layer { network.model.layers[index] }

    /// Runs one forward pass and measures layer `index` alone: from the moment the output of
    /// layer `index − 1` is ready (the start of the pass for layer 0) to the moment its own
    /// output is ready, seen through `Network.forward`'s observer. package-benchmark's
    /// measurement is started and stopped at the same two points, so its wall clock is this
    /// layer's time; the layers after it and the copy of the outputs are not counted.
    /// Returns the measured span.
    public func run(_ benchmark: Benchmark) throws -> Duration {
        let clock = ContinuousClock()
        var start = clock.now
        var elapsed = Duration.zero
        let target = index
        if target == 0 {
            benchmark.startMeasurement()
            start = clock.now
        }
        try network.forward(input) { layer, _ in
            if layer.index == target - 1 {
                benchmark.startMeasurement()
                start = clock.now
            } else if layer.index == target {
                elapsed = start.duration(to: clock.now)
                benchmark.stopMeasurement()
            }
        }
        return elapsed
    }
}
