/// A model with its weights and activation buffers: runs forward passes of `batch` images.
///
/// Not thread-safe: one `Network` runs one forward at a time (it owns its buffers). Use one
/// per thread.
///
/// Batches: inside the network every activation of `batch` images is channel-major,
/// `C × batch × H × W` (image `b`'s channel `c` plane at `(c·batch + b)·H·W`; for one image this
/// is plain CHW). Convolutions then multiply the whole batch at once (pointwise layers: one GEMM
/// over `batch·H·W` columns), and every per-plane layer (maxpool, upsample, route, shortcut,
/// yolo…) runs unchanged on `C·batch` planes. `forward` takes and returns images one after the
/// other (CHW each); `[connected]` and `[softmax]` run image by image.
public final class Network {
    public let model: ModelDescription
    /// Images per forward pass.
    public let batch: Int
    /// Folded parameters of each convolutional, connected and batchnorm layer (nil for other layers).
    let parameters: [ConvolutionWeights?]
    let plan: MemoryPlan
    /// Pools their convolution computes (`fusedPools`).
    let fusedPools: [Bool]
    /// One allocation for every activation (`plan.offsetOfLayer`).
    private let arena: UnsafeMutablePointer<Float>
    /// Views of the `outputLayers`' outputs inside the arena (what `forwardViews` returns).
    private let outputViews: [UnsafeBufferPointer<Float>]
    private let workspace: UnsafeMutablePointer<Float>
    private let workspaceCount: Int
    /// The channel-major copy of a batch's input (nil for one image: the input is used as is).
    private let batchInput: UnsafeMutablePointer<Float>?

    /// Largest batch a network accepts.
    public static let maximumBatch = 1024

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
    /// `batch` (1...`maximumBatch`): images per forward pass; activations grow with it.
    public convenience init(model: ModelDescription, weights: consuming [Int: ConvolutionWeights],
                            algorithm: ConvolutionAlgorithm = .auto, batch: Int = 1) throws {
        try self.init(model: model, weights: weights, algorithm: algorithm, batch: batch, inPlaceRoutes: true)
    }

    /// `inPlaceRoutes: false` makes every multi-source route copy, `inPlaceShortcuts: false`
    /// every shortcut add into its own block (tests compare the plans).
    init(model: ModelDescription, weights: consuming [Int: ConvolutionWeights], algorithm: ConvolutionAlgorithm,
         batch: Int = 1, inPlaceRoutes: Bool, inPlaceShortcuts: Bool = true) throws {
        guard (1...Self.maximumBatch).contains(batch) else { throw NetworkError.invalidBatch(batch, maximum: Self.maximumBatch) }
        self.model = model
        self.batch = batch
        let prepared = Self.prepare(consume weights, for: model, algorithm: algorithm, batch: batch)
        for layer in model.layers where WeightsReader.parts(of: layer) != nil && prepared[layer.index] == nil {
            throw NetworkError.missingParameters(layer: layer.index, type: layer.typeName)
        }
        self.parameters = model.layers.map { prepared[$0.index] }
        let plan = MemoryPlan(layers: model.layers, batch: batch, inPlaceRoutes: inPlaceRoutes,
                              inPlaceShortcuts: inPlaceShortcuts)
        self.plan = plan
        self.fusedPools = Self.fusedPools(model: model, parameters: parameters, plan: plan)
        let workspaceCount = Self.workspaceCount(for: model, methods: model.layers.map { layer in
            guard case .convolutional = layer.kind else { return nil }
            return prepared[layer.index].map(Self.method) ?? .im2col
        }, batch: batch)
        let inputFloats = batch > 1 ? batch * model.inputShape.count : 0
        let bytes = (plan.totalFloats + workspaceCount + inputFloats) * MemoryLayout<Float>.stride
        if bytes > Self.maximumActivationBytes {
            throw NetworkError.tooMuchMemory(bytesNeeded: bytes, limit: Self.maximumActivationBytes)
        }
        self.workspaceCount = workspaceCount
        self.workspace = .allocate(capacity: max(workspaceCount, 1))
        let arena = UnsafeMutablePointer<Float>.allocate(capacity: max(plan.arenaFloats, 1))
        arena.initialize(repeating: 0, count: max(plan.arenaFloats, 1))
        self.arena = arena
        workspace.initialize(repeating: 0, count: max(workspaceCount, 1))
        if batch > 1 {
            let input = UnsafeMutablePointer<Float>.allocate(capacity: inputFloats)
            input.initialize(repeating: 0, count: inputFloats)
            self.batchInput = input
        } else {
            self.batchInput = nil
        }
        self.outputViews = Self.outputLayers(of: model).map { index in
            UnsafeBufferPointer(start: arena + plan.offsetOfLayer[index], count: model.layers[index].output.count * batch)
        }
    }

    /// Floats of the one workspace a network of `batch` images needs when its convolutions run
    /// `methods` (indexed by layer): the largest any layer needs (im2col blocks, Winograd's
    /// transformed tiles, image-by-image copies of a batch).
    static func workspaceCount(for model: ModelDescription, methods: [ConvolutionMethod?], batch: Int) -> Int {
        var count = 0
        for layer in model.layers {
            switch layer.kind {
            case .convolutional(let conv):
                count = max(count, conv.workspaceCount(input: layer.input, output: layer.output,
                                                       method: methods[layer.index] ?? .im2col, batch: batch))
            case .local(let local):  // im2col columns (+ one gathered image and its output in a batch)
                let columns = local.size * local.size * layer.input.channels * layer.output.height * layer.output.width
                count = max(count, columns + (batch > 1 ? layer.input.count + layer.output.count : 0))
            case .maxpool(let pool) where pool.depthChannels != nil:
                if batch > 1 { count = max(count, layer.input.count + layer.output.count) }  // `eachImage`
            case .connected, .softmax, .reorg:
                if batch > 1 { count = max(count, layer.input.count + layer.output.count) }  // `eachImage`
            default:
                break
            }
        }
        return count
    }

    /// Loads a cfg and its weights. `width`/`height` override `[net]`'s input size.
    public convenience init(cfg: String, weights: String, width: Int? = nil, height: Int? = nil,
                            algorithm: ConvolutionAlgorithm = .auto) throws {
        let model = try ModelDescription(contentsOf: cfg, width: width, height: height)
        // The reader prepares each convolution for its method as it reads it (`Network.prepare`
        // then leaves them as they are).
        let methods = model.convolutionMethods(algorithm)
        try self.init(model: model, weights: WeightsReader.read(contentsOf: weights, for: model, methods: methods),
                      algorithm: algorithm)
    }

    /// `weights` with every convolution ready for the method `algorithm` gives it (Winograd
    /// layers get their transformed weights, once). Networks built from the result share it.
    ///
    /// `weights` is consumed and updated in place: a layer's plain weights are freed as soon as
    /// its transformed ones exist (when the caller holds no other reference), so loading never
    /// holds both forms of every Winograd layer at once (yolov3 `detect` at 416: peak RSS
    /// 26 MiB lower under auto, 116 MiB lower under winograd-f2).
    /// `batch`: the images per forward pass the `auto` memory budget plans for.
    public static func prepare(_ weights: consuming [Int: ConvolutionWeights], for model: ModelDescription,
                               algorithm: ConvolutionAlgorithm, batch: Int = 1) -> [Int: ConvolutionWeights] {
        let methods = model.convolutionMethods(algorithm, batch: batch)
        for layer in model.layers {
            guard case .convolutional(let conv) = layer.kind, let method = methods[layer.index],
                  let parameters = weights.removeValue(forKey: layer.index) else { continue }
            weights[layer.index] = parameters.prepared(for: method, channels: layer.input.channels, output: layer.output,
                                                       groups: conv.groups)
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
        switch parameters.stride2 {
        case .f4: return .winogradStride2
        case .f2: return .winogradStride2F2
        case nil: break
        }
        switch parameters.winogradVariant {
        case .f4: return parameters.winogradStreamed ? .winogradStreamed : .winograd
        case .f2: return parameters.winogradStreamed ? .winogradF2Streamed : .winogradF2
        case nil: return .im2col
        }
    }

    /// Bytes of convolution parameters each layer holds (0 for layers without).
    public var parameterBytes: [Int] { parameters.map { $0?.bytes ?? 0 } }

    deinit {
        arena.deallocate()
        workspace.deallocate()
        batchInput?.deallocate()
    }

    /// Runs the network on `input` (`channels × height × width` of `[net]`, CHW; `batch` such
    /// images one after the other) and returns the outputs of the `[yolo]` layers (or of the last
    /// layer when there are none), `batch` images one after the other, each `LayerOutput.shape`.
    /// `observer` sees every layer's output right after it is computed (tests), in the
    /// network's channel-major layout. Reads no clock: `profile(_:)` is the timed variant.
    @discardableResult
    public func forward(_ input: [Float], observer: ((Layer, UnsafeBufferPointer<Float>) -> Void)? = nil) throws -> [LayerOutput] {
        var untimed: [LayerTime]? = nil
        return try pass(input, observer: observer, times: &untimed)
    }

    /// `batch` images (each `channels × height × width` of `[net]`, CHW) → each image's outputs
    /// (`outputLayers`' order), as `forward` returns them.
    public func forward(batch images: [[Float]]) throws -> [[LayerOutput]] {
        guard images.count == batch else { throw NetworkError.batchCount(expected: batch, actual: images.count) }
        let count = model.inputShape.count
        guard let wrong = images.first(where: { $0.count != count }) else {
            let outputs = try forward(images.flatMap { $0 })
            return (0..<batch).map { b in
                outputs.map { output in
                    let size = output.shape.count
                    return LayerOutput(layer: output.layer, shape: output.shape, values: Array(output.values[(b * size)..<((b + 1) * size)]))
                }
            }
        }
        throw NetworkError.inputSize(expected: model.inputShape, actualCount: wrong.count)
    }

    /// `forward` without copying: returns views of the `outputLayers`' outputs (in that order)
    /// inside the network's arena, valid until the next forward on this network or its deinit.
    /// After the first call it allocates nothing (the views are built at init; the arena and
    /// the workspace are allocated once). `input`: `batch` images of `channels × height × width`
    /// of `[net]`, CHW, one after the other. With a batch the views are channel-major
    /// (`C × batch × H × W`, see ``Network``).
    public func forwardViews(_ input: UnsafeBufferPointer<Float>) throws -> [UnsafeBufferPointer<Float>] {
        guard let base = input.baseAddress, input.count == batch * model.inputShape.count else {
            throw inputError(input.count)
        }
        var untimed: [LayerTime]? = nil
        run(channelMajor(base), observer: nil, times: &untimed)
        return outputViews
    }

    private func inputError(_ count: Int) -> NetworkError {
        batch == 1 ? .inputSize(expected: model.inputShape, actualCount: count)
            : .batchInputSize(batch: batch, expected: model.inputShape, actualCount: count)
    }

    /// The network's view of `batch` CHW images: themselves for one image, else their
    /// channel-major copy in `batchInput`.
    private func channelMajor(_ input: UnsafePointer<Float>) -> UnsafePointer<Float> {
        guard let batchInput else { return input }
        Batch.interleave(input, into: batchInput, shape: model.inputShape, batch: batch)
        return UnsafePointer(batchInput)
    }

    /// The forward pass. With `times` nil (what `forward` passes) no clock is read; otherwise
    /// each layer's time (and its convolution phases) is appended to it (`profile`).
    func pass(_ input: [Float], observer: ((Layer, UnsafeBufferPointer<Float>) -> Void)?,
              times: inout [LayerTime]?) throws -> [LayerOutput] {
        guard input.count == batch * model.inputShape.count else { throw inputError(input.count) }
        input.withUnsafeBufferPointer { inputBuffer in
            run(channelMajor(inputBuffer.baseAddress!), observer: observer, times: &times)
        }
        return zip(outputLayers, outputViews).map { index, view in
            let shape = model.layers[index].output
            guard batch > 1 else { return LayerOutput(layer: index, shape: shape, values: Array(view)) }
            let values = [Float](unsafeUninitializedCapacity: view.count) { buffer, initialized in
                Batch.deinterleave(view.baseAddress!, into: buffer.baseAddress!, shape: shape, batch: batch)
                initialized = view.count
            }
            return LayerOutput(layer: index, shape: shape, values: values)
        }
    }

    /// Unobserved, a convolution followed by an in-place shortcut adds the shortcut's source in
    /// its epilogue and the shortcut does nothing, and one followed by a fused pool pools its
    /// rows; observed, each layer's own output is seen (the shortcut adds in place).
    private func run(_ input: UnsafePointer<Float>, observer: ((Layer, UnsafeBufferPointer<Float>) -> Void)?,
                     times: inout [LayerTime]?) {
        let fuse = observer == nil
        for layer in model.layers {
            if times == nil {
                var noTimer: PhaseTimer? = nil
                run(layer, networkInput: input, fuse: fuse, timer: &noTimer)
            } else {
                let start = ProfileClock.now()
                var timer: PhaseTimer? = nil
                if case .convolutional = layer.kind { timer = PhaseTimer() }
                run(layer, networkInput: input, fuse: fuse, timer: &timer)
                let end = ProfileClock.now()
                times?.append(LayerTime(layer: layer.index, seconds: ProfileClock.seconds(from: start, to: end),
                                        phases: timer?.phases))
            }
            observer?(layer, UnsafeBufferPointer(start: output(of: layer.index), count: layer.output.count * batch))
        }
    }

    /// Indices of the layers `forward` returns: every `[yolo]`, else the last layer (a
    /// `[region]`, a classifier's `[softmax]`…).
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

    /// One layer on the whole batch. Per-plane layers see `C·batch` planes (`planes`); yolo
    /// and batchnorm see each channel's `batch` planes as one taller plane (`stacked`).
    private func run(_ layer: Layer, networkInput: UnsafePointer<Float>, fuse: Bool, timer: inout PhaseTimer?) {
        let out = output(of: layer.index)
        let previous: UnsafePointer<Float> = layer.index == 0 ? networkInput : UnsafePointer(output(of: layer.index - 1))
        let batch = self.batch
        func planes(_ shape: TensorShape) -> TensorShape {
            TensorShape(channels: shape.channels * batch, height: shape.height, width: shape.width)
        }
        func stacked(_ shape: TensorShape) -> TensorShape {
            TensorShape(channels: shape.channels, height: shape.height * batch, width: shape.width)
        }
        switch layer.kind {
        case .convolutional(let conv):
            guard let weights = parameters[layer.index] else { preconditionFailure("convolution \(layer.index) has no weights") }
            var residual: UnsafePointer<Float>? = nil
            if fuse, layer.index + 1 < model.layers.count, plan.shortcutInPlace[layer.index + 1],
               case .shortcut(let shortcut) = model.layers[layer.index + 1].kind {
                residual = UnsafePointer(output(of: shortcut.source))
            }
            let pooled = fuse && layer.index + 1 < model.layers.count && fusedPools[layer.index + 1]
                ? output(of: layer.index + 1) : nil
            conv.forward(input: previous, inputShape: layer.input, output: out, outputShape: layer.output,
                         weights: weights, workspace: workspace, batch: batch, residual: residual, pooled: pooled, timer: &timer)
        case .maxpool where fuse && fusedPools[layer.index]:
            break  // pooled by the convolution before it
        case .maxpool(let pool):
            if let outChannels = pool.depthChannels {
                eachImage(layer, previous, out) {
                    pool.forwardDepth(input: $0, inputShape: layer.input, output: $1, outChannels: outChannels)
                }
            } else {
                pool.forward(input: previous, inputShape: planes(layer.input), output: out, outputShape: planes(layer.output))
            }
        case .upsample(let upsample):
            upsample.forward(input: previous, inputShape: planes(layer.input), output: out)
        case .route(let route):
            if plan.routeInPlace[layer.index] { break }
            route.forward(sources: route.sources.map { (UnsafePointer(output(of: $0)), model.layers[$0].output.count * batch) },
                          output: out)
        case .shortcut where fuse && plan.shortcutInPlace[layer.index]:
            break  // added by the convolution before it
        case .shortcut(let shortcut) where shortcut.isMultilayer:
            shortcut.forwardMultilayer(input: previous, shape: layer.output,
                                       sources: shortcut.sources.map { UnsafePointer(output(of: $0)) },
                                       sourceShapes: shortcut.sources.map { model.layers[$0].output },
                                       weights: parameters[layer.index]?.weights ?? [], batch: batch, output: out)
        case .shortcut(let shortcut):
            shortcut.forward(input: previous, shape: planes(layer.output), source: UnsafePointer(output(of: shortcut.source)),
                             sourceShape: planes(model.layers[shortcut.source].output), output: out)
        case .yolo(let yolo):
            yolo.forward(input: previous, output: out, shape: stacked(layer.output))
        case .avgpool(let pool):
            pool.forward(input: previous, inputShape: planes(layer.input), output: out)
        case .connected(let connected):
            guard let weights = parameters[layer.index] else { preconditionFailure("connected \(layer.index) has no weights") }
            eachImage(layer, previous, out) { input, output in
                connected.forward(input: input, inputCount: layer.input.count, output: output, weights: weights)
            }
        case .softmax(let softmax):
            eachImage(layer, previous, out) { softmax.forward(input: $0, output: $1, count: layer.output.count) }
        case .batchnorm(let batchnorm):
            guard let weights = parameters[layer.index] else { preconditionFailure("batchnorm \(layer.index) has no weights") }
            batchnorm.forward(input: previous, shape: stacked(layer.output), output: out, weights: weights)
        case .sam(let sam):
            sam.forward(input: previous, source: UnsafePointer(output(of: sam.source)), output: out,
                        count: layer.output.count * batch)
        case .scaleChannels(let scale):
            scale.forward(input: previous, source: UnsafePointer(output(of: scale.source)), sourceShape: planes(layer.output),
                          output: out, batch: batch)
        case .reorg(let reorg):
            eachImage(layer, previous, out) { reorg.forward(input: $0, inputShape: layer.input, output: $1) }
        case .local(let local):
            guard let weights = parameters[layer.index] else { preconditionFailure("local \(layer.index) has no weights") }
            let columns = workspace + (batch > 1 ? layer.input.count + layer.output.count : 0)
            eachImage(layer, previous, out) {
                local.forward(input: $0, inputShape: layer.input, output: $1, outputShape: layer.output,
                              weights: weights, columns: columns)
            }
        case .crop(let crop):
            crop.forward(input: previous, inputShape: planes(layer.input), output: out)
        case .region(let region):
            region.forward(input: previous, output: out, shape: stacked(layer.output))
        case .dropout, .cost:
            if out != previous { out.update(from: previous, count: layer.output.count * batch) }
        }
    }

    /// Runs `body` on each image of the batch in CHW: the layers that mix channels and pixels of
    /// one image (`[connected]`, `[softmax]`, `[reorg]`, `[local]`, `[maxpool]` with `maxpool_depth`). Image `b` is gathered into the workspace, and its
    /// output scattered back into the channel-major batch. One image: `body(input, output)`.
    private func eachImage(_ layer: Layer, _ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>,
                           _ body: (UnsafePointer<Float>, UnsafeMutablePointer<Float>) -> Void) {
        guard batch > 1 else { return body(input, output) }
        let imageInput = workspace, imageOutput = workspace + layer.input.count
        for b in 0..<batch {
            Batch.gather(image: b, from: input, into: imageInput, shape: layer.input, batch: batch)
            body(UnsafePointer(imageInput), imageOutput)
            Batch.scatter(image: b, from: UnsafePointer(imageOutput), into: output, shape: layer.output, batch: batch)
        }
    }
}
