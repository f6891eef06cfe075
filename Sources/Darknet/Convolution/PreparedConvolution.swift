import Kernels

/// One `[convolutional]` layer planned at load: the method it runs, chosen once
/// (`ModelDescription.convolutionMethods`), and its weights in that method's layout. `Network`
/// asks it for its workspace and whether it can compute the pool that follows, and runs it.
///
/// Each case is one route, in its own file beside this one:
/// - `gemm`: 1×1 stride-1 layers, one GEMM on the input (`PointwiseConvolution`);
/// - `im2col`: darknet's im2col + GEMM, in blocks or in bands (`Im2colConvolution`);
/// - `winograd`: F(4×4, 3×3), weights transformed at load or during each pass (`WinogradConvolution`);
/// - `winogradStride2`: 3×3 stride-2 layers in 2×2 tiles (`WinogradStride2Convolution`);
/// - `xnor`: AlexeyAB's XNOR convolutions (`XnorConvolution`).
enum PreparedConvolution: Sendable {
    case gemm(PointwiseConvolution)
    case im2col(Im2colConvolution)
    case winograd(WinogradConvolution)
    case winogradStride2(WinogradStride2Convolution)
    case xnor(XnorConvolution)

    /// `weights` (plain, folded) prepared for `method` on `layer`. A method the layer cannot
    /// run (Winograd on a layer of another shape, streamed without the packed kernel) falls back
    /// to what it can: pre-transformed Winograd, else im2col.
    init(_ layer: Layer, _ conv: Convolutional, weights: consuming ConvolutionWeights, method: ConvolutionMethod,
         options: ExecutionOptions) {
        let spec = ConvolutionSpec(layer, conv, biases: weights.biases)
        switch Self.runnable(method, conv, options) {
        case .gemm: self = .gemm(PointwiseConvolution(spec, weights: weights.weights, kernel: options.kernels.packed))
        case .im2col, .im2colBands: self = .im2col(Im2colConvolution(spec, weights: weights.weights, kernels: options.kernels))
        case .winograd: self = .winograd(WinogradConvolution(spec, plain: weights.weights, streamed: false, options: options))
        case .winogradStreamed: self = .winograd(WinogradConvolution(spec, plain: weights.weights, streamed: true, options: options))
        case .winogradStride2:
            self = .winogradStride2(weights.weights.withUnsafeBufferPointer { WinogradStride2Convolution(spec, plain: $0, options: options) })
        case .xnor: self = .xnor(XnorConvolution(spec, weights: weights.weights))
        }
    }

    /// The method `method` becomes on a layer that cannot run it.
    static func runnable(_ method: ConvolutionMethod, _ conv: Convolutional, _ options: ExecutionOptions) -> ConvolutionMethod {
        if conv.xnor { return .xnor }
        if conv.isPointwise { return .gemm }
        switch method {
        case .gemm, .im2col, .im2colBands, .xnor:
            return .im2col
        case .winograd, .winogradStreamed:
            guard conv.winogradEligible else { return .im2col }
            let streams = method == .winogradStreamed && Winograd.streams(filters: conv.filters, kernel: options.kernels.packed)
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
        }
    }

    var method: ConvolutionMethod { route.method }
    /// Bytes of weights and biases held.
    var parameterBytes: Int { route.parameterBytes }

    /// Floats of workspace `method` needs on `layer` for `images` images under `kernels`, before
    /// any weights exist (what planning and `Network` size the workspace by).
    static func workspaceCount(_ layer: Layer, _ conv: Convolutional, method: ConvolutionMethod, images: Int,
                               kernels: KernelContext) -> Int {
        let geometry = ConvolutionSpec.geometry(layer, conv)
        let group = ConvolutionSpec.group(geometry, groups: conv.groups)
        let blocking = kernels.blocking
        switch method {
        case .gemm:
            return PointwiseConvolution.packsColumns(group, groups: conv.groups, kernel: kernels.packed)
                ? PointwiseConvolution.packedScratchCount(group) : 0
        case .im2col, .im2colBands:
            return Im2colConvolution.workspaceCount(group, groups: conv.groups, images: images, kernels: kernels)
        case .winograd, .winogradStreamed:
            return Winograd.workspaceCount(geometry, images: images, streamed: method == .winogradStreamed, blocking: blocking)
        case .winogradStride2:
            return WinogradStride2.workspaceCount(geometry, blocking: blocking)
        case .xnor:
            return XnorConvolution.workspaceCount(geometry)
        }
    }
}

/// What every route answers.
protocol ConvolutionRoute: Sendable {
    var spec: ConvolutionSpec { get }
    var method: ConvolutionMethod { get }
    /// Bytes of weights (in the route's layout) and biases held.
    var parameterBytes: Int { get }
    /// Floats of workspace a forward of `images` images needs.
    func workspaceCount(images: Int, blocking: Blocking) -> Int
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
