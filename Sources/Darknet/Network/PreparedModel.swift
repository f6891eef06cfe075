/// A model ready to run: its description, the options it runs under, and every layer's
/// parameters, folded, each convolution prepared for its method (`PreparedConvolution`,
/// chosen once by `ConvolutionPlanner`). `Network`s made from it share its weights, read-only;
/// each has its own buffers. Every init goes through `PreparedModelBuilder`.
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
        try Self.check(options)
        try options.precision.check(model, weightsFile: "<values>", weightsSHA256: { nil })
        var builder = PreparedModelBuilder(model: model, options: options, batch: batch)
        var layers = weights.layers
        for layer in model.layers {
            guard let parameters = layers.removeValue(forKey: layer.index) else { continue }
            try builder.add(layer, parameters)
        }
        self = try builder.build()
    }

    /// Reads `path` through `mmap` and prepares each convolution as it is read, releasing each
    /// layer's pages of the file once it is prepared (`MappedFile`), planned for `batch` images.
    public init(model: ModelDescription, weightsFile path: String, options: ExecutionOptions = .init(),
                batch: Int = 1) throws {
        try Self.check(options)
        let file = try MappedFile(path: path)
        try options.precision.check(model, weightsFile: path, weightsSHA256: file.sha256)
        var builder = PreparedModelBuilder(model: model, options: options, batch: batch)
        try builder.read(file.bytes, file: path, consumed: file.release(upTo:))
        self = try builder.build()
    }

    /// The same from the file open on `descriptor` (mapped; the caller closes it), named
    /// `file` in errors: a path the `String` API cannot name (bytes that are not UTF-8).
    package init(model: ModelDescription, weightsDescriptor descriptor: Int32, file: String,
                 options: ExecutionOptions = .init(), batch: Int = 1) throws {
        try Self.check(options)
        let mapped = try MappedFile(descriptor: descriptor, name: file)
        try options.precision.check(model, weightsFile: file, weightsSHA256: mapped.sha256)
        var builder = PreparedModelBuilder(model: model, options: options, batch: batch)
        try builder.read(mapped.bytes, file: file, consumed: mapped.release(upTo:))
        self = try builder.build()
    }

    /// The same from the bytes of a weights file in memory; `file` names it in errors.
    public init(model: ModelDescription, weightsBytes bytes: UnsafeRawBufferPointer, file: String = "<weights>",
                options: ExecutionOptions = .init(), batch: Int = 1) throws {
        try Self.check(options)
        try options.precision.check(model, weightsFile: file, weightsSHA256: { SHA256.hex(bytes) })
        var builder = PreparedModelBuilder(model: model, options: options, batch: batch)
        try builder.read(bytes, file: file, consumed: { _ in })
        self = try builder.build()
    }

    /// Throws for options the kernels cannot run (more threads than `ExecutionOptions.maximumThreads`,
    /// `gemm` oneDNN without oneDNN).
    static func check(_ options: ExecutionOptions) throws {
        if options.threads > ExecutionOptions.maximumThreads {
            throw NetworkError.tooManyThreads(options.threads, maximum: ExecutionOptions.maximumThreads)
        }
        try options.gemm.check()
    }

    /// Checks that every layer with parameters has them, of its type (`PreparedModelBuilder.build`).
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
