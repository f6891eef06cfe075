/// Every layer's parameters as a weights file holds them, folded (batch norm into the
/// convolutions and connected layers): what `WeightsReader.read` returns and
/// `SyntheticWeights` makes, and what a `PreparedModel` is made from.
public struct ModelWeights: Sendable {
    /// Layer index → its parameters (layers without parameters have none).
    public var layers: [Int: LayerWeights]

    public init(_ layers: [Int: LayerWeights] = [:]) {
        self.layers = layers
    }

    /// A model whose only parameters are convolutions': layer index → folded weights and biases.
    public init(convolutions: [Int: ConvolutionWeights]) {
        layers = convolutions.mapValues { .convolution($0) }
    }

    public subscript(layer: Int) -> LayerWeights? {
        get { layers[layer] }
        set { layers[layer] = newValue }
    }
}

/// One layer's folded parameters, in the type its layer runs with.
public enum LayerWeights: Sendable {
    case convolution(ConvolutionWeights)
    case connected(ConnectedWeights)
    case batchnorm(BatchnormWeights)
    case local(LocalWeights)
    case shortcut(ShortcutWeights)
    case implicit(ImplicitWeights)
    case crnn(CRNNWeights)

    /// The section of the layer these parameters are for.
    var sectionName: String {
        switch self {
        case .convolution: Convolutional.name
        case .connected: Connected.name
        case .batchnorm: Batchnorm.name
        case .local: Local.name
        case .shortcut: Shortcut.name
        case .implicit: Implicit.name
        case .crnn: CRNN.name
        }
    }

    /// Floats held.
    public var count: Int {
        switch self {
        case .convolution(let w): w.weights.count + w.biases.count
        case .connected(let w): w.weights.count + w.biases.count
        case .batchnorm(let w): w.scales.count + w.offsets.count
        case .local(let w): w.weights.count + w.biases.count
        case .shortcut(let w): w.weights.count
        case .implicit(let w): w.values.count
        case .crnn(let w): w.convolutions.reduce(0) { $0 + $1.weights.count + $1.biases.count }
        }
    }
}
