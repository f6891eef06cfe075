import Kernels

/// One `[convolutional]` layer planned at load: the method it runs, chosen once
/// (`ConvolutionPlanner`), and its weights in that method's layout. `Network` asks whether it
/// can compute the pool that follows, and runs it. Its inits are the only place a route is built
/// (`PreparedModelBuilder` calls them whichever way the weights arrive), so a route is built
/// one way.
///
/// Each case is one route, in its own file beside this one:
/// - `gemm`: 1×1 stride-1 layers, one GEMM on the input (`PointwiseConvolution`);
/// - `im2col`: darknet's im2col + GEMM, in blocks or in bands (`Im2colConvolution`);
/// - `winograd`: F(4×4, 3×3), weights transformed at load or during each pass (`WinogradConvolution`);
/// - `winogradStride2`: 3×3 stride-2 layers in 2×2 tiles (`WinogradStride2Convolution`);
/// - `xnor`: AlexeyAB's XNOR convolutions (`XnorConvolution`);
/// - `int8`: im2col + GEMM in 8-bit integers, for the layers a calibration marks (`Int8Convolution`).
enum PreparedConvolution: Sendable {
    case gemm(PointwiseConvolution)
    case im2col(Im2colConvolution)
    case winograd(WinogradConvolution)
    case winogradStride2(WinogradStride2Convolution)
    case xnor(XnorConvolution)
    case int8(Int8Convolution)

    /// `weights` (plain, folded) prepared for `method` on `layer`. A method the layer cannot
    /// run (Winograd on a layer of another shape, streamed without the packed kernel) falls back
    /// to what it can: pre-transformed Winograd, else im2col.
    init(_ layer: Layer, _ conv: Convolutional, weights: consuming ConvolutionWeights, method: ConvolutionMethod,
         options: ExecutionOptions) {
        let spec = ConvolutionSpec(layer, conv, biases: weights.biases)
        switch Self.runnable(method, conv, kernels: options.kernels) {
        case .gemm: self = .gemm(PointwiseConvolution(spec, weights: weights.weights, kernel: options.kernels.productKernel))
        case .im2col, .im2colBands: self = .im2col(Im2colConvolution(spec, weights: weights.weights, kernels: options.kernels))
        case .winogradStreamed: self = .winograd(WinogradConvolution(spec, streaming: weights.weights, options: options))
        case .winograd, .winogradStride2:
            self = weights.weights.withUnsafeBufferPointer {
                Self(transforming: $0, spec, method: method, conv: conv, options: options)
            }
        case .xnor: self = .xnor(XnorConvolution(spec, weights: weights.weights))
        case .int8:
            // The planner gives `int8` only to layers the calibration quantizes, and a prepared
            // model is made with int8 only where oneDNN loaded (`Precision.check`).
            guard let library = OneDNN.library,
                  let input = options.precision.calibration?.quantization(ofLayer: layer.index, levels: library.activationLevels)
            else { preconditionFailure("PreparedConvolution: layer \(layer.index) planned int8 without oneDNN or its calibration") }
            self = .int8(weights.weights.withUnsafeBufferPointer { Int8Convolution(spec, weights: $0, input: input, library: library) })
        }
    }

    /// The same from folded weights `filters × C/groups × size × size` that the caller keeps
    /// (the weights reader's scratch buffer, valid during the call) and `biases`: a method that
    /// transforms them at load (`transformsAtLoad`) reads them where they are, so no plain copy
    /// of the layer is ever allocated; any other copies them.
    init(_ layer: Layer, _ conv: Convolutional, folded weights: UnsafeBufferPointer<Float>, biases: [Float],
         method: ConvolutionMethod, options: ExecutionOptions) {
        guard Self.transformsAtLoad(method, conv, kernels: options.kernels) else {
            self.init(layer, conv, weights: ConvolutionWeights(weights: Array(weights), biases: biases), method: method,
                      options: options)
            return
        }
        self.init(transforming: weights, ConvolutionSpec(layer, conv, biases: biases), method: method, conv: conv,
                  options: options)
    }

    /// The Winograd routes whose weights are transformed at load, from plain weights they do not keep.
    private init(transforming plain: UnsafeBufferPointer<Float>, _ spec: ConvolutionSpec, method: ConvolutionMethod,
                 conv: Convolutional, options: ExecutionOptions) {
        switch Self.runnable(method, conv, kernels: options.kernels) {
        case .winograd: self = .winograd(WinogradConvolution(spec, transforming: plain, options: options))
        case .winogradStride2: self = .winogradStride2(WinogradStride2Convolution(spec, plain: plain, options: options))
        case let other: preconditionFailure("PreparedConvolution: \(other) does not transform its weights at load")
        }
    }

    /// True when `method` on `conv` builds a route that transforms its weights at load and keeps
    /// only the transform (`winograd`, `winograd-stride2`): the plain weights can come from a
    /// reused buffer (`WeightsReader.walk` says why that matters).
    static func transformsAtLoad(_ method: ConvolutionMethod, _ conv: Convolutional, kernels: KernelContext) -> Bool {
        let runs = runnable(method, conv, kernels: kernels)
        return runs == .winograd || runs == .winogradStride2
    }

    /// The method `method` becomes on a layer that cannot run it.
    static func runnable(_ method: ConvolutionMethod, _ conv: Convolutional, kernels: KernelContext) -> ConvolutionMethod {
        if conv.xnor { return .xnor }
        if method == .int8 { return .int8 }
        if conv.isPointwise { return .gemm }
        switch method {
        case .gemm, .im2col, .im2colBands, .xnor, .int8:
            return .im2col
        case .winograd, .winogradStreamed:
            guard conv.winogradEligible else { return .im2col }
            let streams = method == .winogradStreamed && Winograd.streams(filters: conv.filters, kernel: kernels.packed)
            return streams ? .winogradStreamed : .winograd
        case .winogradStride2:
            return conv.winogradStride2Eligible ? .winogradStride2 : .im2col
        }
    }

    var route: any ConvolutionRoute {
        switch self {
        case .gemm(let route): route
        case .im2col(let route): route
        case .winograd(let route): route
        case .winogradStride2(let route): route
        case .xnor(let route): route
        case .int8(let route): route
        }
    }

    var method: ConvolutionMethod { route.method }
    /// Bytes of weights and biases held.
    var parameterBytes: Int { route.parameterBytes }

    /// Floats of workspace the route `init` builds for `context.method` on `layer` needs
    /// (`ConvolutionRoute.workspaceCount`), before any weights exist: what `auto`'s budget
    /// (`ConvolutionPlanner`) and `Network` size the workspace by, and what the route runs in.
    static func workspaceCount(_ layer: Layer, _ conv: Convolutional, _ context: PlanningContext) -> Int {
        let geometry = ConvolutionSpec.geometry(layer, conv)
        var context = context
        context.method = runnable(context.method ?? .im2col, conv, kernels: context.kernels)
        let route: any ConvolutionRoute.Type = switch context.method! {
        case .gemm: PointwiseConvolution.self
        case .im2col, .im2colBands: Im2colConvolution.self
        case .winograd, .winogradStreamed: WinogradConvolution.self
        case .winogradStride2: WinogradStride2Convolution.self
        case .xnor: XnorConvolution.self
        case .int8: Int8Convolution.self
        }
        return route.workspaceCount(geometry, groups: conv.groups, context)
    }
}

/// What every route answers.
protocol ConvolutionRoute: Sendable {
    var spec: ConvolutionSpec { get }
    var method: ConvolutionMethod { get }
    /// Bytes of weights (in the route's layout) and biases held.
    var parameterBytes: Int { get }
    /// Floats of workspace a forward needs on a layer of shape `geometry` in `groups` groups:
    /// `context.batch` images, `context.kernels` (whether weights are packed, the blocks) and
    /// `context.method` (one the route runs). The route's one formula: planning asks it before
    /// the route exists, `Network` sizes its workspace by it, and the route runs in that many floats.
    static func workspaceCount(_ geometry: ConvolutionGeometry, groups: Int, _ context: PlanningContext) -> Int
    /// True when the route can compute the 2×2 stride-2 `[maxpool]` that follows (`Maxpool.halves`)
    /// from each pair of output rows as it finishes them (`ConvolutionIO.pooled`).
    var poolsRows: Bool { get }
    func run(_ io: ConvolutionIO, workspace: UnsafeMutablePointer<Float>, context: KernelContext, timer: inout PhaseTimer?)
}

/// What every route knows about its layer.
struct ConvolutionSpec: Sendable {
    /// The whole layer's shape (all channels and filters).
    var geometry: ConvolutionGeometry
    var groups: Int
    var activation: Activation
    /// One per filter, batch norm folded in.
    var biases: [Float]

    init(_ layer: Layer, _ conv: Convolutional, biases: [Float]) {
        geometry = Self.geometry(layer, conv)
        groups = conv.groups
        activation = conv.activation
        self.biases = biases
    }

    /// The layer's shape as the kernels see it.
    static func geometry(_ layer: Layer, _ conv: Convolutional) -> ConvolutionGeometry {
        ConvolutionGeometry(channels: layer.input.channels, height: layer.input.height, width: layer.input.width,
                            filters: conv.filters, outHeight: layer.output.height, outWidth: layer.output.width,
                            size: conv.size, strideX: conv.stride, strideY: conv.strideY, pad: conv.padding,
                            dilation: conv.dilation)
    }

    /// One group's shape: `channels / groups` inputs, `filters / groups` outputs.
    var group: ConvolutionGeometry { Self.group(geometry, groups: groups) }

    static func group(_ geometry: ConvolutionGeometry, groups: Int) -> ConvolutionGeometry {
        var g = geometry
        g.channels /= groups
        g.filters /= groups
        return g
    }
}

/// One forward call's operands, channel-major as `Network` keeps a batch (`C × images × H × W`).
struct ConvolutionIO {
    var input: UnsafePointer<Float>
    var output: UnsafeMutablePointer<Float>
    var images: Int
    /// The fused `[shortcut]`'s source, laid out as `output`, added after the activation.
    var residual: UnsafePointer<Float>?
    /// The fused 2×2 stride-2 pool's output (`filters × images × outH/2 × outW/2`), when the
    /// route `poolsRows`: it is written instead of the convolution's own output, which may then be left unwritten.
    var pooled: UnsafeMutablePointer<Float>?

    /// The input of `group` of `spec`'s layer.
    func input(_ spec: ConvolutionSpec, group: Int) -> TensorView {
        let g = spec.group
        let view = TensorView(input, channels: g.channels, height: g.height, width: g.width, images: images)
        var shifted = view
        shifted.base = view.base + group * g.channels * view.channelStride
        return shifted
    }

    /// The output of `group`.
    func output(_ spec: ConvolutionSpec, group: Int) -> MutableTensorView {
        let g = spec.group
        var view = MutableTensorView(output, channels: g.filters, height: g.outHeight, width: g.outWidth, images: images)
        view.base += group * g.filters * view.channelStride
        return view
    }

    /// The pooled output (one group only: `poolsRows` routes have none).
    func pooledView(_ spec: ConvolutionSpec) -> MutableTensorView? {
        pooled.map { MutableTensorView($0, channels: spec.geometry.filters, height: spec.geometry.outHeight / 2,
                                       width: spec.geometry.outWidth / 2, images: images) }
    }

    /// The epilogue of `group`: its biases, and the residual at its output's place.
    func epilogue(_ spec: ConvolutionSpec, group: Int, biases: UnsafePointer<Float>) -> Epilogue {
        let g = spec.group
        let shift = group * g.filters * images * g.spatial
        return Epilogue(biases: biases + group * g.filters, activation: spec.activation, residual: residual.map { $0 + shift })
    }
}
