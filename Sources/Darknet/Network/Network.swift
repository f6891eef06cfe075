import Kernels

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
    /// The model and its prepared parameters, shared read-only with the other networks made from it.
    public let prepared: PreparedModel
    public var model: ModelDescription { prepared.model }
    /// Images per forward pass.
    public let batch: Int
    let plan: MemoryPlan
    /// Pools their convolution computes (`fusedPools`).
    let fusedPools: [Bool]
    /// What the kernels are told (the prepared model's options).
    private let context: KernelContext
    /// One allocation for every activation (`plan.offsetOfLayer`).
    private let arena: UnsafeMutablePointer<Float>
    /// `plan.offsetOfLayer`, where `LayerRun` reads it without touching an array.
    private let offsets: UnsafeBufferPointer<Int>
    /// Views of the `outputLayers`' outputs inside the arena (what `forwardViews` returns).
    private let outputViews: [UnsafeBufferPointer<Float>]
    private let workspace: UnsafeMutablePointer<Float>
    private let workspaceCount: Int
    /// The channel-major copy of a batch's input (nil for one image: the input is used as is).
    private let batchInput: UnsafeMutablePointer<Float>?

    /// Largest batch a network accepts.
    public static let maximumBatch = 1024

    /// The output of one layer, copied out of the network's buffers.
    public struct LayerOutput: Sendable {
        public var layer: Int
        public var shape: TensorShape
        public var values: [Float]
    }

    /// A network of `batch` images (1...`maximumBatch`) on `prepared`'s parameters; its
    /// activation buffers are allocated here, once, within the model's
    /// `ModelLimits.maximumActivationBytes`.
    public convenience init(_ prepared: PreparedModel, batch: Int = 1) throws {
        try self.init(prepared, batch: batch, inPlaceRoutes: true)
    }

    /// Prepares `weights` under `options` (`PreparedModel`) for a network of `batch` images.
    public convenience init(model: ModelDescription, weights: consuming ModelWeights, options: ExecutionOptions = .init(),
                            batch: Int = 1) throws {
        try self.init(PreparedModel(model: model, weights: weights, options: options, batch: batch), batch: batch)
    }

    /// Loads a cfg and its weights. `width`/`height` override `[net]`'s input size. Files
    /// given the wrong way round are a `ModelFileError` (`ModelFileKind.check`).
    public convenience init(cfg: String, weights: String, width: Int? = nil, height: Int? = nil,
                            options: ExecutionOptions = .init()) throws {
        try ModelFileKind.check(cfg: cfg, weights: weights)
        let model = try ModelDescription(contentsOf: cfg, width: width, height: height)
        try self.init(PreparedModel(model: model, weightsFile: weights, options: options))
    }

    /// `inPlaceRoutes: false` makes every multi-source route copy, `inPlaceShortcuts: false`
    /// every shortcut add into its own block (tests compare the plans).
    init(_ prepared: PreparedModel, batch: Int = 1, inPlaceRoutes: Bool, inPlaceShortcuts: Bool = true) throws {
        guard (1...Self.maximumBatch).contains(batch) else { throw NetworkError.invalidBatch(batch, maximum: Self.maximumBatch) }
        let model = prepared.model
        self.prepared = prepared
        self.batch = batch
        context = prepared.options.kernels
        let plan = MemoryPlan(layers: model.layers, batch: batch, inPlaceRoutes: inPlaceRoutes,
                              inPlaceShortcuts: inPlaceShortcuts)
        self.plan = plan
        self.fusedPools = Self.fusedPools(model: model, convolutions: prepared.convolutions, plan: plan)
        let workspaceCount = ConvolutionPlanner.workspaceCount(for: model, methods: prepared.methods, batch: batch,
                                                               kernels: prepared.options.kernels)
        let inputFloats = batch > 1 ? batch * model.inputShape.count : 0
        let bytes = (plan.totalFloats + workspaceCount + inputFloats) * MemoryLayout<Float>.stride
        let limit = model.limits.maximumActivationBytes
        if bytes > limit { throw NetworkError.tooMuchMemory(bytesNeeded: bytes, limit: limit) }
        self.workspaceCount = workspaceCount
        self.workspace = Self.allocateOnCacheLines(max(workspaceCount, 1))
        let offsets = UnsafeMutableBufferPointer<Int>.allocate(capacity: plan.offsetOfLayer.count)
        _ = offsets.initialize(from: plan.offsetOfLayer)
        self.offsets = UnsafeBufferPointer(offsets)
        let arena = Self.allocateOnCacheLines(max(plan.arenaFloats, 1))
        arena.initialize(repeating: 0, count: max(plan.arenaFloats, 1))
        self.arena = arena
        workspace.initialize(repeating: 0, count: max(workspaceCount, 1))
        if batch > 1 {
            let input = Self.allocateOnCacheLines(inputFloats)
            input.initialize(repeating: 0, count: inputFloats)
            self.batchInput = input
        } else {
            self.batchInput = nil
        }
        self.outputViews = Self.outputLayers(of: model).map { index in
            UnsafeBufferPointer(start: arena + plan.offsetOfLayer[index], count: model.layers[index].output.count * batch)
        }
    }

    /// The method each convolution runs (nil for other layers), as `summary` and `benchmark` show.
    public var methods: [ConvolutionMethod?] { prepared.methods }

    /// Bytes of parameters each layer holds (0 for layers without).
    public var parameterBytes: [Int] { prepared.parameterBytes }

    /// `count` floats starting on a cache line (64 bytes), so that the plan's offsets, rounded to
    /// `MemoryPlan.alignment`, are cache lines too. `UnsafeMutablePointer.allocate` only
    /// promises a Float's alignment; glibc gave 16 bytes past a line, and OpenBLAS's 64-byte
    /// loads of every tensor then each straddled two lines (docs/bench-log.md).
    static func allocateOnCacheLines(_ count: Int) -> UnsafeMutablePointer<Float> {
        UnsafeMutableRawPointer.allocate(byteCount: count * MemoryLayout<Float>.stride,
                                         alignment: MemoryPlan.alignment * MemoryLayout<Float>.stride)
            .bindMemory(to: Float.self, capacity: count)
    }

    deinit {
        offsets.deallocate()
        UnsafeMutableRawPointer(arena).deallocate()
        UnsafeMutableRawPointer(workspace).deallocate()
        batchInput.map { UnsafeMutableRawPointer($0).deallocate() }
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

    /// Indices of the layers `forward` returns: every detection head (`[yolo]`,
    /// `[Gaussian_yolo]`, `[region]`), else the last layer (a classifier's `[softmax]`…).
    public var outputLayers: [Int] { Self.outputLayers(of: model) }

    private static func outputLayers(of model: ModelDescription) -> [Int] {
        let heads = model.layers.filter(\.isDetectionHead).map(\.index)
        return heads.isEmpty ? [model.layers.count - 1] : heads
    }

    /// Floats held by activation buffers and the im2col workspace.
    public var activationFloats: Int { plan.totalFloats + workspaceCount }

    private func output(of index: Int) -> UnsafeMutablePointer<Float> { arena + plan.offsetOfLayer[index] }

    /// The arena's first float (tests check that it never moves and views point into it).
    var arenaBase: UnsafeMutablePointer<Float> { arena }
    /// The workspace's and the batch input copy's first floats (tests check their alignment).
    var scratchBases: (workspace: UnsafeMutablePointer<Float>, batchInput: UnsafeMutablePointer<Float>?) {
        (workspace, batchInput)
    }

    /// One layer on the whole batch (`LayerType.forward`), unless the memory plan or a fusion
    /// already did its work: a route in place, a shortcut its convolution added (`fuse`), a
    /// pool its convolution computed.
    private func run(_ layer: Layer, networkInput: UnsafePointer<Float>, fuse: Bool, timer: inout PhaseTimer?) {
        let index = layer.index
        if plan.routeInPlace[index] || (fuse && (fusedPools[index] || plan.shortcutInPlace[index])) { return }
        var run = LayerRun(layer: layer, batch: batch, context: context,
                           input: index == 0 ? networkInput : UnsafePointer(output(of: index - 1)), output: output(of: index),
                           workspace: workspace, weights: prepared.weights[index], convolution: prepared.convolutions[index],
                           arena: arena, offsets: offsets, layers: model.layers)
        if fuse, index + 1 < model.layers.count {
            if plan.shortcutInPlace[index + 1], case .shortcut(let shortcut) = model.layers[index + 1].kind {
                run.residual = UnsafePointer(output(of: shortcut.source))
            }
            if fusedPools[index + 1] { run.pooled = output(of: index + 1) }
        }
        layer.kind.type.forward(run, timer: &timer)
    }
}
