/// A model ready to run: its description, the options it runs under, and every layer's
/// parameters, folded, each convolution prepared for its method (`PreparedConvolution`,
/// chosen once by `ModelDescription.convolutionMethods`). `Network`s made from it share its
/// weights, read-only; each has its own buffers.
public struct PreparedModel: Sendable {
    public let model: ModelDescription
    public let options: ExecutionOptions
    /// Each convolution's route and weights, by layer index.
    let convolutions: [PreparedConvolution?]
    /// The other layers' parameters, by layer index.
    let weights: [LayerWeights?]

    /// Plans `weights` (consumed: each convolution's plain weights are freed as soon as its
    /// method's layout exists) for a network of `batch` images (what `auto`'s memory budget
    /// counts). Throws when a layer that needs parameters has none of the right type.
    public init(model: ModelDescription, weights: consuming ModelWeights, options: ExecutionOptions = .init(),
                batch: Int = 1) throws {
        let methods = model.convolutionMethods(options, batch: batch)
        var layers = weights.layers
        var convolutions = [PreparedConvolution?](repeating: nil, count: model.layers.count)
        var others = [LayerWeights?](repeating: nil, count: model.layers.count)
        let shared = model.sharedConvolutions
        var sources: [Int: LayerWeights] = [:]
        for layer in model.layers {
            var parameters = layers.removeValue(forKey: layer.index)
            if let source = shared[layer.index] { parameters = parameters ?? sources[source] }
            if shared.values.contains(layer.index) { sources[layer.index] = parameters }
            if case .convolutional(let conv) = layer.kind {
                guard case .convolution(let plain) = parameters else {
                    throw NetworkError.missingParameters(layer: layer.index, type: layer.typeName)
                }
                convolutions[layer.index] = PreparedConvolution(layer, conv, weights: plain, method: methods[layer.index]!,
                                                                options: options)
            } else {
                others[layer.index] = parameters
            }
        }
        try self.init(model: model, options: options, convolutions: convolutions, weights: others)
    }

    /// Reads `path` and prepares each convolution as it is read (`WeightsReader`), planned for
    /// `batch` images.
    public init(model: ModelDescription, weightsFile path: String, options: ExecutionOptions = .init(),
                batch: Int = 1) throws {
        self = try WeightsReader.prepare(contentsOf: path, for: model, options: options, batch: batch)
    }

    /// The same from the bytes of a weights file in memory; `file` names it in errors.
    public init(model: ModelDescription, weightsBytes bytes: UnsafeRawBufferPointer, file: String = "<weights>",
                options: ExecutionOptions = .init(), batch: Int = 1) throws {
        self = try WeightsReader.prepare(bytes, file: file, for: model, options: options, batch: batch)
    }

    /// Checks that every layer with parameters has them, of its type.
    init(model: ModelDescription, options: ExecutionOptions, convolutions: [PreparedConvolution?],
         weights: [LayerWeights?]) throws {
        for layer in model.layers {
            let needs = WeightsReader.parts(of: layer, in: model) != nil
            let has = if case .convolutional = layer.kind {
                convolutions[layer.index] != nil
            } else {
                weights[layer.index].map { $0.sectionName == layer.typeName } ?? false
            }
            if needs && !has { throw NetworkError.missingParameters(layer: layer.index, type: layer.typeName) }
        }
        self.model = model
        self.options = options
        self.convolutions = convolutions
        self.weights = weights
    }

    /// The method each convolution runs (nil for other layers), as `summary` and `benchmark` show.
    public var methods: [ConvolutionMethod?] { convolutions.map { $0?.method } }

    /// Bytes of parameters each layer holds (0 for layers without).
    public var parameterBytes: [Int] {
        zip(convolutions, weights).map { convolution, weights in
            convolution?.parameterBytes ?? (weights?.count ?? 0) * MemoryLayout<Float>.stride
        }
    }
}
