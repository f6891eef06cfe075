/// A model with its weights and activation buffers: runs batch-1 forward passes.
///
/// Not thread-safe: one `Network` runs one forward at a time (it owns its buffers). Use one
/// per thread.
public final class Network {
    public let model: ModelDescription
    /// Folded parameters of each convolutional, connected and batchnorm layer (nil for other layers).
    let parameters: [ConvolutionWeights?]
    let plan: MemoryPlan
    /// One allocation for every activation (`plan.offsetOfLayer`).
    private let arena: UnsafeMutablePointer<Float>
    /// Views of the `outputLayers`' outputs inside the arena (what `forwardViews` returns).
    private let outputViews: [UnsafeBufferPointer<Float>]
    private let workspace: UnsafeMutablePointer<Float>
    private let workspaceCount: Int

    /// Largest activation memory a network may allocate (raise it for huge inputs).
    nonisolated(unsafe) public static var maximumActivationBytes = 8 << 30

    /// The output of one layer, copied out of the network's buffers.
    public struct LayerOutput: Sendable {
        public var layer: Int
        public var shape: TensorShape
        public var values: [Float]
    }

    /// `algorithm` picks each convolution's method (`ConvolutionAlgorithm`); parameters that
    /// `Network.prepare` already transformed keep their method.
    public convenience init(model: ModelDescription, weights: consuming [Int: ConvolutionWeights],
                            algorithm: ConvolutionAlgorithm = .auto) throws {
        try self.init(model: model, weights: weights, algorithm: algorithm, inPlaceRoutes: true)
    }

    /// `inPlaceRoutes: false` makes every multi-source route copy (tests compare both plans).
    init(model: ModelDescription, weights: consuming [Int: ConvolutionWeights], algorithm: ConvolutionAlgorithm,
         inPlaceRoutes: Bool) throws {
        self.model = model
        let prepared = Self.prepare(consume weights, for: model, algorithm: algorithm)
        self.parameters = model.layers.map { prepared[$0.index] }
        let plan = MemoryPlan(layers: model.layers, inPlaceRoutes: inPlaceRoutes)
        self.plan = plan
        var workspaceCount = 0
        for layer in model.layers {
            if case .convolutional(let conv) = layer.kind {
                let method = prepared[layer.index].map(Self.method) ?? .im2col
                workspaceCount = max(workspaceCount, conv.workspaceCount(input: layer.input, output: layer.output, method: method))
            }
        }
        let bytes = (plan.totalFloats + workspaceCount) * MemoryLayout<Float>.stride
        if bytes > Self.maximumActivationBytes {
            throw NetworkError.tooMuchMemory(bytesNeeded: bytes, limit: Self.maximumActivationBytes)
        }
        self.workspaceCount = workspaceCount
        self.workspace = .allocate(capacity: max(workspaceCount, 1))
        let arena = UnsafeMutablePointer<Float>.allocate(capacity: max(plan.arenaFloats, 1))
        arena.initialize(repeating: 0, count: max(plan.arenaFloats, 1))
        self.arena = arena
        workspace.initialize(repeating: 0, count: max(workspaceCount, 1))
        self.outputViews = Self.outputLayers(of: model).map { index in
            UnsafeBufferPointer(start: arena + plan.offsetOfLayer[index], count: model.layers[index].output.count)
        }
    }

    /// Loads a cfg and its weights. `width`/`height` override `[net]`'s input size.
    public convenience init(cfg: String, weights: String, width: Int? = nil, height: Int? = nil,
                            algorithm: ConvolutionAlgorithm = .auto) throws {
        let model = try ModelDescription(contentsOf: cfg, width: width, height: height)
        try self.init(model: model, weights: WeightsReader.read(contentsOf: weights, for: model), algorithm: algorithm)
    }

    /// `weights` with every convolution ready for the method `algorithm` gives it (Winograd
    /// layers get their transformed weights, once). Networks built from the result share it.
    ///
    /// `weights` is consumed and updated in place: a layer's plain weights are freed as soon as
    /// its transformed ones exist (when the caller holds no other reference), so loading never
    /// holds both forms of every Winograd layer at once (yolov3 `detect` at 416: peak RSS
    /// 26 MiB lower under auto, 116 MiB lower under winograd-f2).
    public static func prepare(_ weights: consuming [Int: ConvolutionWeights], for model: ModelDescription,
                               algorithm: ConvolutionAlgorithm) -> [Int: ConvolutionWeights] {
        let methods = model.convolutionMethods(algorithm)
        for layer in model.layers {
            guard case .convolutional(let conv) = layer.kind, let method = methods[layer.index],
                  let parameters = weights.removeValue(forKey: layer.index) else { continue }
            weights[layer.index] = parameters.prepared(for: method, filters: conv.filters, channels: layer.input.channels)
        }
        return weights
    }

    /// The method each convolution runs (nil for other layers), as `summary` and `benchmark` show.
    public var methods: [ConvolutionMethod?] {
        model.layers.map { layer in
            guard case .convolutional(let conv) = layer.kind else { return nil }
            let method = parameters[layer.index].map(Self.method) ?? .im2col
            return method == .im2col && conv.isPointwise ? .gemm : method
        }
    }

    /// The method prepared parameters run: their Winograd variant, else im2col (or plain GEMM).
    private static func method(_ parameters: ConvolutionWeights) -> ConvolutionMethod {
        switch parameters.winogradVariant {
        case .f4: return .winograd
        case .f2: return .winogradF2
        case nil: return .im2col
        }
    }

    /// Bytes of convolution parameters each layer holds (0 for layers without).
    public var parameterBytes: [Int] { parameters.map { $0?.bytes ?? 0 } }

    deinit {
        arena.deallocate()
        workspace.deallocate()
    }

    /// Runs the network on `input` (`channels × height × width` of `[net]`, CHW) and returns the
    /// outputs of the `[yolo]` layers (or of the last layer when there are none).
    /// `observer` sees every layer's output right after it is computed (tests). Reads no clock:
    /// `profile(_:)` is the timed variant.
    @discardableResult
    public func forward(_ input: [Float], observer: ((Layer, UnsafeBufferPointer<Float>) -> Void)? = nil) throws -> [LayerOutput] {
        var untimed: [LayerTime]? = nil
        return try pass(input, observer: observer, times: &untimed)
    }

    /// `forward` without copying: returns views of the `outputLayers`' outputs (in that order)
    /// inside the network's arena, valid until the next forward on this network or its deinit.
    /// After the first call it allocates nothing (the views are built at init; the arena and
    /// the workspace are allocated once). `input`: `channels × height × width` of `[net]`, CHW.
    public func forwardViews(_ input: UnsafeBufferPointer<Float>) throws -> [UnsafeBufferPointer<Float>] {
        guard input.count == model.inputShape.count, let base = input.baseAddress else {
            throw NetworkError.inputSize(expected: model.inputShape, actualCount: input.count)
        }
        var untimed: [LayerTime]? = nil
        run(base, observer: nil, times: &untimed)
        return outputViews
    }

    /// The forward pass. With `times` nil (what `forward` passes) no clock is read; otherwise
    /// each layer's time (and its convolution phases) is appended to it (`profile`).
    func pass(_ input: [Float], observer: ((Layer, UnsafeBufferPointer<Float>) -> Void)?,
              times: inout [LayerTime]?) throws -> [LayerOutput] {
        guard input.count == model.inputShape.count else {
            throw NetworkError.inputSize(expected: model.inputShape, actualCount: input.count)
        }
        input.withUnsafeBufferPointer { inputBuffer in
            run(inputBuffer.baseAddress!, observer: observer, times: &times)
        }
        return zip(outputLayers, outputViews).map { index, view in
            LayerOutput(layer: index, shape: model.layers[index].output, values: Array(view))
        }
    }

    private func run(_ input: UnsafePointer<Float>, observer: ((Layer, UnsafeBufferPointer<Float>) -> Void)?,
                     times: inout [LayerTime]?) {
        for layer in model.layers {
            if times == nil {
                var noTimer: PhaseTimer? = nil
                run(layer, networkInput: input, timer: &noTimer)
            } else {
                let start = ProfileClock.now()
                var timer: PhaseTimer? = nil
                if case .convolutional = layer.kind { timer = PhaseTimer() }
                run(layer, networkInput: input, timer: &timer)
                let end = ProfileClock.now()
                times?.append(LayerTime(layer: layer.index, seconds: ProfileClock.seconds(from: start, to: end),
                                        phases: timer?.phases))
            }
            observer?(layer, UnsafeBufferPointer(start: output(of: layer.index), count: layer.output.count))
        }
    }

    /// Indices of the layers `forward` returns: every `[yolo]`, else the last layer.
    public var outputLayers: [Int] { Self.outputLayers(of: model) }

    private static func outputLayers(of model: ModelDescription) -> [Int] {
        let yolo = model.layers.filter { if case .yolo = $0.kind { return true } else { return false } }.map(\.index)
        return yolo.isEmpty ? [model.layers.count - 1] : yolo
    }

    /// Floats held by activation buffers and the im2col workspace.
    public var activationFloats: Int { plan.totalFloats + workspaceCount }

    private func output(of index: Int) -> UnsafeMutablePointer<Float> { arena + plan.offsetOfLayer[index] }

    /// The arena's first float (tests check that it never moves and views point into it).
    var arenaBase: UnsafeMutablePointer<Float> { arena }

    private func run(_ layer: Layer, networkInput: UnsafePointer<Float>, timer: inout PhaseTimer?) {
        let out = output(of: layer.index)
        let previous: UnsafePointer<Float> = layer.index == 0 ? networkInput : UnsafePointer(output(of: layer.index - 1))
        switch layer.kind {
        case .convolutional(let conv):
            guard let weights = parameters[layer.index] else { preconditionFailure("convolution \(layer.index) has no weights") }
            conv.forward(input: previous, inputShape: layer.input, output: out, outputShape: layer.output,
                         weights: weights, workspace: workspace, timer: &timer)
        case .maxpool(let pool):
            pool.forward(input: previous, inputShape: layer.input, output: out, outputShape: layer.output)
        case .upsample(let upsample):
            upsample.forward(input: previous, inputShape: layer.input, output: out)
        case .route(let route):
            if plan.routeInPlace[layer.index] { break }
            route.forward(sources: route.sources.map { (UnsafePointer(output(of: $0)), model.layers[$0].output.count) }, output: out)
        case .shortcut(let shortcut):
            shortcut.forward(input: previous, shape: layer.output, source: UnsafePointer(output(of: shortcut.source)),
                             sourceShape: model.layers[shortcut.source].output, output: out)
        case .yolo(let yolo):
            yolo.forward(input: previous, output: out, shape: layer.output)
        case .avgpool(let pool):
            pool.forward(input: previous, inputShape: layer.input, output: out)
        case .connected(let connected):
            guard let weights = parameters[layer.index] else { preconditionFailure("connected \(layer.index) has no weights") }
            connected.forward(input: previous, inputCount: layer.input.count, output: out, weights: weights)
        case .softmax(let softmax):
            softmax.forward(input: previous, output: out, count: layer.output.count)
        case .batchnorm(let batchnorm):
            guard let weights = parameters[layer.index] else { preconditionFailure("batchnorm \(layer.index) has no weights") }
            batchnorm.forward(input: previous, shape: layer.output, output: out, weights: weights)
        case .sam(let sam):
            sam.forward(input: previous, source: UnsafePointer(output(of: sam.source)), output: out, count: layer.output.count)
        case .scaleChannels(let scale):
            scale.forward(input: previous, source: UnsafePointer(output(of: scale.source)), sourceShape: layer.output, output: out)
        case .dropout, .cost:
            if out != previous { out.update(from: previous, count: layer.output.count) }
        }
    }
}
