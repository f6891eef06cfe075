import Kernels

/// Each convolution's method for a network of `batch` images of `model` under `options`, and the
/// memory that choice is weighed against: the parameters, the activation arena (`MemoryPlan`), the
/// workspace (each layer's `LayerType.workspaceCount`) and the rest of the process. It needs no
/// weights: `PreparedModelBuilder` asks it before the first layer is read, `summary --methods`
/// and `detect` without loading any.
public struct ConvolutionPlanner: Sendable {
    public let model: ModelDescription
    public let options: ExecutionOptions
    /// Images per forward pass (what the arena and the workspace grow with).
    public let batch: Int

    public init(model: ModelDescription, options: ExecutionOptions = .init(), batch: Int = 1) {
        self.model = model
        self.options = options
        self.batch = batch
    }

    /// Fewest input channels for which `auto` gives a stride-2 layer the stride-2 Winograd: its
    /// products are K = channels deep, and at 32 channels they lose to im2col's bands (K = 288,
    /// OpenBLAS's direct kernel) what the 36/25 fewer multiplications gain (docs/bench-log.md).
    public static let stride2WinogradMinimumChannels = 64
    /// Bytes `auto` may always spend on transformed weights, whatever the budget says.
    public static let winogradMemoryFloor = 32 << 20
    /// Models with at most this many bytes of parameters (yolov3-tiny: 35 MB) may spend up to 4×
    /// their parameters on transformed weights (`winogradAllowance`).
    public static let smallModelBytes = 64 << 20

    /// What `auto` may spend on transformed weights whatever twice the parameters leave:
    /// `winogradMemoryFloor`, or for a small model (`smallModelBytes`) 4× its `parameters`: a
    /// small model's process is mostly fixed costs (runtime, OpenBLAS, the photo), and 4× lets
    /// every layer of yolov3-tiny take weights transformed at load, which run faster than
    /// streamed ones on every grid (docs/bench-log.md).
    public static func winogradAllowance(parameters: Int) -> Int {
        parameters <= smallModelBytes ? max(winogradMemoryFloor, 4 * parameters) : winogradMemoryFloor
    }

    /// Memory a running process holds besides the parameters, the activation arena and the
    /// workspace: the Swift runtime, OpenBLAS's buffers, thread stacks, the decoded photo, its
    /// letterboxed copy and the decoded candidates; the last ones grow with the input. `detect`
    /// of yolov3 at 416, 608 and 800 held about 33.6 MB + 45 bytes per input pixel
    /// (docs/bench-log.md), so 36 MiB + 48 bytes a pixel keeps a few MB in hand.
    public var processReserveBytes: Int { (36 << 20) + 48 * model.inputShape.width * model.inputShape.height }

    /// Bytes of parameters darknet stores for the model (the `.weights` file after its header).
    public var parameterBytes: Int { WeightsReader.parameterBytes(for: model) }

    /// The method each convolution runs under `options` (nil for layers that are not
    /// convolutions), as `PreparedConvolution` will run it: 1×1 stride-1 layers `gemm`, short and
    /// wide im2col matrices `im2col-bands` (`Im2colBands`).
    ///
    /// `auto` keeps the network within twice the parameter bytes darknet stores (about 2× the
    /// `.weights` file) while it gives Winograd the 3×3 layers with at least 16 input channels
    /// (below that the GEMMs are too thin to pay for the transforms):
    /// 1. F(4×4) streamed (`winograd-streamed`, darknet's memory) to every stride-1 one, when
    ///    OpenBLAS's packed kernel streams it (`Winograd.streams`);
    /// 2. the stride-2 Winograd (`winograd-stride2`, 25/9 of the weights) to the stride-2 ones
    ///    with at least `stride2WinogradMinimumChannels` input channels, largest output first
    ///    (the fewest channels: the cheapest weights);
    /// 3. F(4×4) with weights transformed at load (`winograd`, 4× the weights), smallest output
    ///    first, where streaming loses: on small grids (under 100 tiles: each weight serves few
    ///    tiles, so the transform during the pass costs most), and before a 2×2 pool only this
    ///    route computes as it goes (`Network.fusedPools`); without the packed kernel, on every one.
    ///
    /// Each step takes a layer only while the budget allows: what remains of twice the
    /// parameters after the plain parameters, the activation arena, the workspace and
    /// `processReserveBytes`, but at least `winogradAllowance`; a layer whose workspace is larger
    /// than the others' pays for the growth too. So the choice depends on the input size.
    ///
    /// With `Precision.int8`, the layers its calibration marks `int8` run `int8` (`int8Layers`),
    /// whatever the algorithm, and `auto` weighs only the others.
    public var methods: [ConvolutionMethod?] {
        var methods: [ConvolutionMethod?]
        switch options.convolutionAlgorithm {
        case .im2col: methods = plainMethods
        case .winograd, .winogradStreamed: methods = winogradMethods
        case .auto: methods = autoChoice().methods
        }
        for index in int8Layers { methods[index] = .int8 }
        return methods
    }

    /// The convolutions that run in int8: those the calibration of `Precision.int8` marks
    /// `int8` and that can (`Int8Convolution.runs`); none in f32.
    public var int8Layers: Set<Int> {
        guard let calibration = options.precision.calibration else { return [] }
        return Set(calibration.int8Layers.filter { index in
            guard index >= 0, index < model.layers.count, case .convolutional(let conv) = model.layers[index].kind else { return false }
            return Int8Convolution.runs(conv, inputChannels: model.layers[index].input.channels)
        })
    }

    /// True when twice the parameters bound `auto`'s choice: the budget refused a layer a method
    /// it would otherwise have got, and the budget was twice the weights rather than the floor
    /// (or the arena of a large batch already takes the process past twice its weights).
    /// The process then runs within a few MB of twice the parameters, with no room for anything
    /// that grows, such as more photos in flight (`detect` then runs its stages one after another).
    /// False for the other algorithms: only `auto` weighs memory.
    public var isMemoryBound: Bool { options.convolutionAlgorithm == .auto && autoChoice().bound }

    /// Bytes of the activation arena the network allocates (`MemoryPlan`), with the
    /// channel-major copy of a batch's input.
    public var activationBytes: Int {
        let input = batch > 1 ? batch * model.inputShape.count : 0
        return (MemoryPlan(layers: model.layers, batch: batch).arenaFloats + input) * MemoryLayout<Float>.stride
    }

    /// Bytes of the workspace the network allocates when its layers run `methods`.
    public func workspaceBytes(methods: [ConvolutionMethod?]) -> Int {
        Self.workspaceCount(for: model, methods: methods, batch: batch, kernels: options.kernels) * MemoryLayout<Float>.stride
    }

    /// Floats of the one workspace a network of `batch` images needs when its convolutions run
    /// `methods` (indexed by layer): the largest any layer needs (`LayerType.workspaceCount`:
    /// im2col blocks, Winograd's transformed tiles, image-by-image copies of a batch). `Network`
    /// allocates this, and `auto`'s budget counts it.
    static func workspaceCount(for model: ModelDescription, methods: [ConvolutionMethod?], batch: Int,
                               kernels: KernelContext) -> Int {
        model.layers.reduce(0) { count, layer in
            let context = PlanningContext(batch: batch, kernels: kernels, method: methods[layer.index])
            return max(count, layer.kind.type.workspaceCount(layer, context))
        }
    }

    /// Bytes of parameters layer `index` holds at inference under `method`: folded weights
    /// (36/9 of them transformed for Winograd at load) and biases; 0 for layers without parameters.
    public func parameterBytes(ofLayer index: Int, method: ConvolutionMethod?) -> Int {
        guard case .convolutional(let conv) = model.layers[index].kind else { return 0 }
        let weights = conv.filters * conv.fanIn(inputChannels: model.layers[index].input.channels)
        // int8: a byte a weight, and per filter its scale, its zero point's term and its bias.
        if method == .int8 { return weights + 3 * conv.filters * MemoryLayout<Float>.stride }
        let held = weights * (method?.floatsPerKernel ?? 9) / 9
        return (held + conv.filters) * MemoryLayout<Float>.stride
    }

    /// `xnor` for XNOR layers, `gemm` for the 1×1 convolutions, `im2col` or `im2col-bands` for the others.
    private var plainMethods: [ConvolutionMethod?] {
        model.layers.map { layer in
            guard case .convolutional(let conv) = layer.kind else { return nil }
            if conv.xnor { return .xnor }
            if conv.isPointwise { return .gemm }
            let group = ConvolutionSpec.group(ConvolutionSpec.geometry(layer, conv), groups: conv.groups)
            return Im2colBands.bandRows(group, options.blocking) == nil ? .im2col : .im2colBands
        }
    }

    /// `winograd` and `winogradStreamed`: every eligible layer, streamed where asked and it can.
    private var winogradMethods: [ConvolutionMethod?] {
        var methods = plainMethods
        for layer in model.layers {
            guard case .convolutional(let conv) = layer.kind else { continue }
            if conv.winogradStride2Eligible { methods[layer.index] = .winogradStride2 }
            guard conv.winogradEligible else { continue }
            let streams = options.convolutionAlgorithm == .winogradStreamed && streams(conv)
            methods[layer.index] = streams ? .winogradStreamed : .winograd
        }
        return methods
    }

    private func streams(_ conv: Convolutional) -> Bool { Winograd.streams(filters: conv.filters, kernel: options.kernels.packed) }

    /// `auto`'s choice (see `methods`), and whether twice the parameters refused a layer a
    /// method it would otherwise have got (`isMemoryBound`).
    private func autoChoice() -> (methods: [ConvolutionMethod?], bound: Bool) {
        let layers = model.layers
        var methods = plainMethods
        let int8 = int8Layers
        for index in int8 { methods[index] = .int8 }
        let candidates = layers.filter { layer in
            guard case .convolutional(let conv) = layer.kind, layer.input.channels >= 16, !int8.contains(layer.index) else {
                return false
            }
            return conv.winogradEligible || conv.winogradStride2Eligible
        }
        let area = { (layer: Layer) in layer.output.height * layer.output.width }
        let float = MemoryLayout<Float>.stride
        var workspace = Self.workspaceCount(for: model, methods: methods, batch: batch, kernels: options.kernels)
        let parameters = parameterBytes
        let held = parameters + activationBytes + workspace * float + processReserveBytes
        let twice = 2 * parameters - held
        let allowance = Self.winogradAllowance(parameters: parameters)
        var budget = max(twice, allowance)
        var refused = false
        /// Gives `layer` `method` when its extra weights and workspace growth fit the budget.
        func take(_ layer: Layer, _ method: ConvolutionMethod) {
            guard case .convolutional(let conv) = layer.kind else { return }
            let weights = conv.filters * conv.fanIn(inputChannels: layer.input.channels) * float
            let context = PlanningContext(batch: batch, kernels: options.kernels, method: method)
            let needed = PreparedConvolution.workspaceCount(layer, conv, context)
            let heldNow = methods[layer.index]?.floatsPerKernel ?? 9
            let bytes = weights * (method.floatsPerKernel - heldNow) / 9 + max(0, needed - workspace) * float
            guard bytes <= budget else {
                refused = true
                return
            }
            methods[layer.index] = method
            budget -= bytes
            workspace = max(workspace, needed)
        }
        let stride1 = candidates.filter { if case .convolutional(let conv) = $0.kind { conv.winogradEligible } else { false } }
        let stride2 = candidates.filter { layer in
            guard case .convolutional(let conv) = layer.kind else { return false }
            return conv.winogradStride2Eligible && layer.input.channels >= Self.stride2WinogradMinimumChannels
        }
        let streamable = { (layer: Layer) in if case .convolutional(let conv) = layer.kind { streams(conv) } else { false } }
        let pools = MemoryPlan(layers: layers, batch: batch).poolWrittenEarly
        for layer in stride1 where streamable(layer) { take(layer, .winogradStreamed) }
        for layer in stride2.sorted(by: { (area($0), -$0.index) > (area($1), -$1.index) }) { take(layer, .winogradStride2) }
        for layer in stride1.sorted(by: { (area($0), $0.index) < (area($1), $1.index) }) {
            let tiles = Winograd.tiles(outHeight: layer.output.height, outWidth: layer.output.width)
            let pooled = layer.index + 1 < layers.count && pools[layer.index + 1]
            if !streamable(layer) || tiles.rows * tiles.columns < 100 || pooled { take(layer, .winograd) }
        }
        // Bound when a layer was refused and the budget was twice the weights, or the process
        // holds more than twice its weights anyway (a large batch). When the floor was larger
        // than what twice the weights left, spending it did not bring the process to twice.
        return (methods, refused && (twice >= allowance || twice < 0))
    }
}

/// The planner's answers as members of the model, for the CLI and for callers that plan once.
extension ModelDescription {
    /// `ConvolutionPlanner.methods`.
    public func convolutionMethods(_ options: ExecutionOptions = .init(), batch: Int = 1) -> [ConvolutionMethod?] {
        ConvolutionPlanner(model: self, options: options, batch: batch).methods
    }

    /// `ConvolutionPlanner.isMemoryBound` of `auto` under `options`' kernels and blocks.
    public func autoIsMemoryBound(_ options: ExecutionOptions = .init(), batch: Int = 1) -> Bool {
        var options = options
        options.convolutionAlgorithm = .auto
        return ConvolutionPlanner(model: self, options: options, batch: batch).isMemoryBound
    }

    /// `ConvolutionPlanner.activationBytes`.
    public func activationBytes(batch: Int = 1) -> Int { ConvolutionPlanner(model: self, batch: batch).activationBytes }

    /// `ConvolutionPlanner.workspaceBytes(methods:)`.
    public func workspaceBytes(methods: [ConvolutionMethod?], batch: Int = 1, options: ExecutionOptions = .init()) -> Int {
        ConvolutionPlanner(model: self, options: options, batch: batch).workspaceBytes(methods: methods)
    }

    /// `ConvolutionPlanner.parameterBytes(ofLayer:method:)`.
    public func parameterBytes(ofLayer index: Int, method: ConvolutionMethod?) -> Int {
        ConvolutionPlanner(model: self).parameterBytes(ofLayer: index, method: method)
    }
}
