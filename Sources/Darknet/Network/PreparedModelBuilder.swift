/// Builds a `PreparedModel` layer by layer, whichever way the weights arrive: from a
/// `ModelWeights` or from the weights reader as it walks a file (`read`). It is the one place
/// that asks `ConvolutionPlanner` for each convolution's method, hands each convolution's
/// weights to `PreparedConvolution` (the only builder of a route), and gives the layers that
/// share another's parameters (`share_index`) their source's, so each of those rules holds
/// the same for both ways in.
struct PreparedModelBuilder {
    let model: ModelDescription
    let options: ExecutionOptions
    /// Each convolution's method (`ConvolutionPlanner.methods`), nil for other layers.
    let methods: [ConvolutionMethod?]
    /// Convolution → the convolution whose parameters it uses (`ModelDescription.sharedConvolutions`).
    private let shared: [Int: Int]
    /// The convolutions whose parameters others use: a plain copy of theirs is kept until `build`.
    private let sources: Set<Int>
    private var kept: [Int: ConvolutionWeights] = [:]
    private var convolutions: [PreparedConvolution?]
    private var others: [LayerWeights?]

    /// A builder for a network of `batch` images (what `auto`'s memory budget counts).
    init(model: ModelDescription, options: ExecutionOptions, batch: Int) {
        self.model = model
        self.options = options
        methods = ConvolutionPlanner(model: model, options: options, batch: batch).methods
        shared = model.sharedConvolutions
        sources = Set(shared.values)
        convolutions = Array(repeating: nil, count: model.layers.count)
        others = Array(repeating: nil, count: model.layers.count)
    }

    /// True when `layer`'s folded weights may be handed over in a buffer the caller reuses
    /// (`add(_:folded:biases:)`): its route transforms them at load and keeps only the transform.
    func takesFoldedBuffer(_ layer: Layer) -> Bool {
        guard case .convolutional(let conv) = layer.kind, let method = methods[layer.index] else { return false }
        return PreparedConvolution.transformsAtLoad(method, conv, kernels: options.kernels)
    }

    /// `layer`'s parameters, folded, consumed: a convolution's plain weights are freed as soon
    /// as its route's layout exists (unless another layer shares them). Throws when a
    /// convolution gets parameters of another type.
    mutating func add(_ layer: Layer, _ parameters: consuming LayerWeights) throws {
        guard case .convolutional(let conv) = layer.kind else {
            others[layer.index] = parameters
            return
        }
        guard case .convolution(let plain) = parameters else {
            throw NetworkError.missingParameters(layer: layer.index, type: layer.typeName)
        }
        if sources.contains(layer.index) { kept[layer.index] = plain }
        convolutions[layer.index] = PreparedConvolution(layer, conv, weights: plain, method: methods[layer.index]!,
                                                        options: options)
    }

    /// A convolution's folded weights in a buffer the caller keeps and reuses (valid during the
    /// call), and its biases: for a layer that `takesFoldedBuffer`.
    mutating func add(_ layer: Layer, folded weights: UnsafeBufferPointer<Float>, biases: [Float]) {
        guard case .convolutional(let conv) = layer.kind else { preconditionFailure("layer \(layer.index) is not a convolution") }
        if sources.contains(layer.index) { kept[layer.index] = ConvolutionWeights(weights: Array(weights), biases: biases) }
        convolutions[layer.index] = PreparedConvolution(layer, conv, folded: weights, biases: biases,
                                                        method: methods[layer.index]!, options: options)
    }

    /// Adds every layer's parameters as `WeightsReader.walk` reads them from `bytes` (the
    /// layers that `takesFoldedBuffer` through the reader's one reused buffer).
    mutating func read(_ bytes: UnsafeRawBufferPointer, file: String, consumed: (Int) -> Void) throws {
        let buffered = Set(model.layers.filter(takesFoldedBuffer).map(\.index))
        try WeightsReader.walk(bytes, file: file, for: model, threads: options.threads,
                               scratch: { buffered.contains($0.index) }, consumed: consumed) { layer, parameters in
            switch parameters {
            case .plain(let weights): try add(layer, weights)
            case .scratch(let weights, let biases): add(layer, folded: weights, biases: biases)
            }
        }
    }

    /// The prepared model: each convolution that shares another's parameters and got none of
    /// its own is prepared from its source's. Throws when a layer that needs parameters has
    /// none of its type.
    consuming func build() throws -> PreparedModel {
        for index in shared.keys.sorted() where convolutions[index] == nil {
            guard case .convolutional(let conv) = model.layers[index].kind, let weights = kept[shared[index]!] else { continue }
            convolutions[index] = PreparedConvolution(model.layers[index], conv, weights: weights, method: methods[index]!,
                                                      options: options)
        }
        return try PreparedModel(model: model, options: options, convolutions: convolutions, weights: others)
    }
}
