import Kernels

/// A convolution in 8-bit integers (`Precision.int8`): darknet's im2col + GEMM with both
/// operands quantized, summed exactly in 32 bits, and turned back into floats by the epilogue,
/// so that every other layer reads and writes f32 as before.
///
/// - Weights: quantized at load per filter, symmetric (`Quantization.quantizeWeights`:
///   `w ≈ s_w[f] · v`, `v` in −127...127), batch norm folded in first.
/// - Input: the whole input quantized once per pass with the layer's calibrated scale `s` and
///   zero point `z` (`ActivationQuantization`, from the `Calibration`): `q` in 0...255, one
///   byte each; then unfolded as darknet's im2col unfolds floats (`Im2col.unfold`), its padding
///   the quantized zero (`z`), which stands for darknet's 0 exactly.
/// - Product, exact in Int32 by oneDNN, in one of three layouts chosen by shape (`Layout`):
///   the weights times the input's bytes stored as `q − offset` (s8×s8), written into the
///   layer's output itself, 1×1 layers on the quantized input as it is and large grids band by
///   band (`Int8Bands`); or, on small grids, the transposed product `Xᵀ · Wᵀ` of the bytes `q`
///   (u8×s8, faster on few columns) into the workspace.
/// - Epilogue, per filter `f`: `y = Float(sum + c[f]) · s · s_w[f]`, `c[f]` the constant that
///   makes the sum `Σ v · (q − z)` (`compensations`; `Quantization.dequantize`), then darknet's
///   bias, activation and the fused `[shortcut]` (`Epilogue`).
///
/// The profile's phases: quantizing (and unfolding a small grid) is `im2col`; the products,
/// with the bands' unfolding and every epilogue, are `gemm`.
///
/// Bits: integer sums are exact, and each output's float arithmetic is the same whatever the
/// cut, so the output is the same on any thread count, in a batch or alone, on every run.
struct Int8Convolution: ConvolutionRoute {
    let spec: ConvolutionSpec
    /// `filters × C/groups × size × size` quantized, darknet's order.
    let weights: [Int8]
    /// Per filter: the input scale times the filter's weight scale.
    let scales: [Float]
    /// Per filter: what turns the product's sum into `Σ v · (q − z)`: `(offset − z) · Σ v` for
    /// bytes stored as `q − offset`, `−z · Σ v` for bytes `q` (`Layout.transposed`).
    let compensations: [Int32]
    let input: ActivationQuantization
    let layout: Layout
    let library: OneDNN.Library

    /// How the product is laid out, by the group's shape.
    enum Layout: Equatable {
        /// 1×1 stride 1: the weights times the quantized input itself, every image at once.
        case pointwise
        /// Large grids: band by band (`Int8Bands`), `rows` output rows a band.
        case bands(rows: Int)
        /// Small grids (fewer than `transposedColumns` outputs an image): each image unfolded
        /// whole, `Xᵀ · Wᵀ` into the workspace, cut by filters (`Int8GEMM.multiplyTransposed`).
        case transposed
        /// Otherwise: blocks of output rows unfolded, each block's product cut among the workers.
        case blocks
    }

    /// Most outputs an image for which a layer takes the transposed product: 13×13 and 19×19
    /// grids, not 26×26, where the s8×s8 product on the output itself saves the workspace.
    static let transposedColumns = 512

    static func layout(_ g: ConvolutionGeometry) -> Layout {
        if g.spatial < transposedColumns { return .transposed }
        if g.size == 1 && g.strideX == 1 && g.strideY == 1 && g.pad == 0 { return .pointwise }
        return Int8Bands.bandRows(g).map { .bands(rows: $0) } ?? .blocks
    }

    /// `weights` (plain, folded) quantized; `input` the layer's input quantization on `library`'s levels.
    init(_ spec: ConvolutionSpec, weights: UnsafeBufferPointer<Float>, input: ActivationQuantization, library: OneDNN.Library) {
        precondition(input.levels == library.activationLevels, "Int8Convolution: \(input.levels) levels on a library of \(library.activationLevels)")
        self.spec = spec
        self.input = input
        self.library = library
        layout = Self.layout(spec.group)
        let quantized = Quantization.quantizeWeights(weights, filters: spec.geometry.filters)
        self.weights = quantized.values
        scales = quantized.scales.map { input.scale * $0 }
        let stored = layout == .transposed ? 0 : input.offset
        compensations = quantized.sums.map { (stored - input.zeroPoint) * $0 }
    }

    /// Deepest products whose sums always fit an `Int32`: `k · 127 · 255` below 2³¹.
    static let maximumK = Int(Int32.max) / (127 * 255)

    /// True when a convolution can run in int8: not XNOR, and `k` within `maximumK`.
    static func runs(_ conv: Convolutional, inputChannels: Int) -> Bool {
        !conv.xnor && conv.fanIn(inputChannels: inputChannels) <= maximumK
    }

    var method: ConvolutionMethod { .int8 }
    var parameterBytes: Int { weights.count + (scales.count + compensations.count + spec.biases.count) * 4 }
    var poolsRows: Bool { false }

    /// Bytes of the quantized input, rounded up to a cache line.
    private static func quantizedBytes(_ geometry: ConvolutionGeometry, images: Int) -> Int {
        (geometry.channels * images * geometry.height * geometry.width + 63) & ~63
    }

    /// Output rows unfolded at a time (`blocks`): the rows whose matrix fits `Blocking.im2colFloats` floats' bytes.
    private static func blockRows(_ g: ConvolutionGeometry, _ blocking: Blocking) -> Int {
        max(1, min(g.outHeight, 4 * blocking.im2colFloats / max(1, g.k * g.outWidth)))
    }

    /// The quantized input (every group, every image), then what the layout needs: every
    /// worker's band, a block of the unfolded matrix, or a whole image's unfolded matrix and
    /// its transposed sums, in floats.
    static func workspaceCount(_ geometry: ConvolutionGeometry, groups: Int, _ context: PlanningContext) -> Int {
        let g = ConvolutionSpec.group(geometry, groups: groups)
        let pointwise = g.size == 1 && g.strideX == 1 && g.strideY == 1 && g.pad == 0
        let extra = switch layout(g) {
        case .pointwise: 0
        case .bands(let rows): Int8Bands.workspaceBytes(g, bandRows: rows)
        case .blocks: g.k * blockRows(g, context.kernels.blocking) * g.outWidth
        case .transposed: (pointwise ? 0 : (g.k * g.spatial + 63) & ~63) + 4 * g.spatial * g.filters
        }
        return (quantizedBytes(geometry, images: context.batch) + extra + 3) / 4
    }

    func run(_ io: ConvolutionIO, workspace: UnsafeMutablePointer<Float>, context: KernelContext, timer: inout PhaseTimer?) {
        precondition(io.pooled == nil, "Int8Convolution: no fused pool")
        let bytes = 4 * Self.workspaceCount(spec.geometry, groups: spec.groups,
                                            PlanningContext(batch: io.images, kernels: context, method: .int8))
        workspace.withMemoryRebound(to: Int8.self, capacity: bytes) { run(io, workspace: $0, context: context, timer: &timer) }
    }

    /// `run` in the workspace's bytes: the quantized input, then what the layout needs.
    private func run(_ io: ConvolutionIO, workspace quantized: UnsafeMutablePointer<Int8>, context: KernelContext,
                     timer: inout PhaseTimer?) {
        let geometry = spec.geometry
        let planeCount = io.images * geometry.height * geometry.width
        let scratch = quantized + Self.quantizedBytes(geometry, images: io.images)
        Quantization.quantize(io.input, count: geometry.channels * planeCount, into: quantized, input,
                              unsigned: layout == .transposed, threads: context.threads)
        timer?.lap(\.im2col)
        weights.withUnsafeBufferPointer { w in
            spec.biases.withUnsafeBufferPointer { biases in
                for group in 0..<spec.groups {
                    let step = Step(route: self, io: io, group: group, biases: biases.baseAddress!, weights: w.baseAddress!,
                                    quantized: quantized, planeCount: planeCount, scratch: scratch, context: context)
                    step.run(timer: &timer)
                }
            }
        }
    }
}
