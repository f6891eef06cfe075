/// `[convolutional]`: input `C×H×W` → `filters × outH × outW`, with
/// `outH = (H + 2·padding − size) / strideY + 1`, `outW = (W + 2·padding − size) / stride + 1`
/// (darknet's `convolutional_out_height`/`_width`).
///
/// darknet's defaults: filters 1, size 1, stride 1, pad 0, padding 0 (`pad=1` means
/// `padding = size/2`), groups 1, activation logistic, batch_normalize 0. Batch norm is
/// folded into the weights at load (see `ConvolutionWeights`).
///
/// AlexeyAB's `stride_x`/`stride_y` (default `stride`) step the kernel separately along x and
/// y, and `dilation = d` spreads its taps `d` pixels apart (ignored for `size=1`): his CPU path
/// calls `im2col_cpu_ext` with padding `padding·d`, so tap `(ky, kx)` of output `(oy, ox)` reads
/// input `(oy·strideY + ky·d − padding·d, ox·stride + kx·d − padding·d)`. His layer size ignores
/// `d`; it equals the taps' geometry `(H + 2·padding·d − d·(size − 1) − 1) / strideY + 1` when
/// `padding = size/2` with an odd size (`pad=1`, every published cfg). Other paddings with
/// `d > 1` make his size and his im2col disagree, and are a typed error here.
public struct Convolutional: Sendable, Hashable {
    public var filters: Int
    public var size: Int
    /// The horizontal stride (`stride_x`, default `stride`; darknet's `l.stride`).
    public var stride: Int
    public var padding: Int
    public var groups: Int
    public var batchNormalize: Bool
    public var activation: Activation
    /// The vertical stride (`stride_y`, default `stride`).
    public var strideY: Int
    /// Spacing of the kernel taps (`dilation`, default 1).
    public var dilation: Int

    public init(filters: Int, size: Int, stride: Int, padding: Int, groups: Int, batchNormalize: Bool,
                activation: Activation, strideY: Int? = nil, dilation: Int = 1) {
        self.filters = filters
        self.size = size
        self.stride = stride
        self.padding = padding
        self.groups = groups
        self.batchNormalize = batchNormalize
        self.activation = activation
        self.strideY = strideY ?? stride
        self.dilation = dilation
    }

    static let keys: Set<String> = [
        "filters", "size", "stride", "pad", "padding", "groups", "activation", "batch_normalize",
        "binary", "xnor", "flipped", "dilation", "stride_x", "stride_y", "dot", "bin_output", "share_index",
        "antialiasing", "assisted_excitation", "sway", "rotate", "stretch", "stretch_sway", "deform",
        "coordconv", "angle",
    ]
    /// Keys read and honoured; the other `keys` are training-only (ignored) or `rejectedKeys`.
    static let honouredKeys: Set<String> = ["filters", "size", "stride", "pad", "padding", "groups", "activation", "batch_normalize",
                                            "stride_x", "stride_y", "dilation"]
    /// Keys that are a typed error (naming key and line) unless darknet's default, with a value that triggers it.
    static let rejectedKeys: [String: String] = ["binary": "1", "xnor": "1", "flipped": "1", "dot": "0.5", "bin_output": "1", "share_index": "0", "antialiasing": "1", "assisted_excitation": "1", "sway": "1", "rotate": "1", "stretch": "1", "stretch_sway": "1", "deform": "1", "coordconv": "1"]

    static func parse(_ section: CfgSection) throws -> Convolutional {
        let filters = try section.int("filters", default: 1)
        let size = try section.int("size", default: 1)
        let stride = try section.int("stride", default: 1)
        let pad = try section.int("pad", default: 0)
        var padding = try section.int("padding", default: 0)
        let groups = try section.int("groups", default: 1)
        if pad != 0 { padding = size / 2 }
        for (key, value) in [("filters", filters), ("size", size), ("stride", stride), ("groups", groups)] where value < 1 {
            throw CfgError.invalidValue(section.location(key), value: String(value), expected: "an integer ≥ 1")
        }
        if padding < 0 {
            throw CfgError.invalidValue(section.location("padding"), value: String(padding), expected: "padding ≥ 0")
        }
        if filters % groups != 0 {
            throw CfgError.invalidValue(section.location("groups"), value: String(groups),
                                        expected: "a divisor of filters=\(filters)")
        }
        for key in ["binary", "xnor", "flipped"] where try section.int(key, default: 0) != 0 {
            throw CfgError.unsupported(section.location(key), what: "\(key)=1 convolutions")
        }
        let strideX = try section.int("stride_x", default: stride)
        let strideY = try section.int("stride_y", default: stride)
        var dilation = try section.int("dilation", default: 1)
        // (darknet falls back to `stride` for a stride_x/stride_y below 1; here it is an error.)
        for (key, value) in [("stride_x", strideX), ("stride_y", strideY), ("dilation", dilation)] where value < 1 {
            throw CfgError.invalidValue(section.location(key), value: String(value), expected: "an integer ≥ 1")
        }
        if size == 1 { dilation = 1 }  // parse_convolutional ignores dilation for 1×1 kernels
        if dilation > 1 && (size % 2 == 0 || padding != size / 2) {
            throw CfgError.unsupported(section.location("dilation"),
                                       what: "dilation=\(dilation) with padding=\(padding) and size=\(size) (darknet's layer size and its im2col disagree unless pad=1 with an odd size)")
        }
        try rejectUnhonoured(section)
        let activation = try Activation(cfgName: section.string("activation", default: "logistic"),
                                        location: section.location("activation"))
        return Convolutional(filters: filters, size: size, stride: strideX, padding: padding, groups: groups,
                             batchNormalize: try section.int("batch_normalize", default: 0) != 0,
                             activation: activation, strideY: strideY, dilation: dilation)
    }

    /// AlexeyAB's options this engine does not implement, with the value that means "off"
    /// (its `parse_convolutional` defaults). Setting one to anything else is a typed error
    /// naming the key and its line, never silently ignored. `angle` only matters with
    /// sway/rotate/stretch, which are rejected here.
    static let unhonoured: [(key: String, off: Int)] = [
        ("antialiasing", 0), ("assisted_excitation", 0), ("deform", 0), ("sway", 0), ("rotate", 0),
        ("stretch", 0), ("stretch_sway", 0), ("coordconv", 0), ("bin_output", 0),
    ]

    static func rejectUnhonoured(_ section: CfgSection) throws {
        for (key, off) in unhonoured where try section.int(key, default: off) != off {
            throw CfgError.unsupported(section.location(key), what: "\(key) in [convolutional]")
        }
        if try section.float("dot", default: 0) != 0 {
            throw CfgError.unsupported(section.location("dot"), what: "dot in [convolutional]")
        }
        for key in ["share_index"] where section.option(key) != nil {
            throw CfgError.unsupported(section.location(key), what: "\(key) in [convolutional]")
        }
    }

    /// Pure shape inference; nil when the input is too small for size/stride/padding.
    public func outputShape(input: TensorShape) -> TensorShape? {
        let outHeight = (input.height + 2 * padding - size) / strideY + 1
        let outWidth = (input.width + 2 * padding - size) / stride + 1
        guard input.height + 2 * padding >= size, input.width + 2 * padding >= size,
              outHeight > 0, outWidth > 0 else { return nil }
        return TensorShape(channels: filters, height: outHeight, width: outWidth)
    }

    /// Weights per filter: `(C / groups) · size²`.
    public func fanIn(inputChannels: Int) -> Int { inputChannels / groups * size * size }

    /// darknet's BFLOPs for this layer: `2 · filters · (C/groups) · size² · outH · outW / 1e9`.
    public func bflops(input: TensorShape, output: TensorShape) -> Double {
        2.0 * Double(filters) * Double(fanIn(inputChannels: input.channels)) * Double(output.height * output.width) / 1e9
    }

    /// True when the convolution is a plain matrix product of weights and input (1×1, stride 1, no padding).
    public var isPointwise: Bool { size == 1 && stride == 1 && strideY == 1 && padding == 0 }

    /// Floats of workspace this layer needs under `method` for `batch` images (for pointwise convolutions
    /// only the packed kernel's scratch, `pointwisePackedScratch`, or 0).
    public func workspaceCount(input: TensorShape, output: TensorShape, method: ConvolutionMethod = .im2col,
                               batch: Int = 1) -> Int {
        switch method {
        case .winograd, .winogradF2, .winogradF2Streamed, .winogradStreamed:
            return Winograd.workspaceCount(method.winogradVariant ?? .f4, channels: input.channels, filters: filters,
                                           outHeight: output.height, outWidth: output.width, batch: batch,
                                           streamed: method.isStreamed)
        case .winogradStride2, .winogradStride2F2:
            return WinogradStride2.workspaceCount(method.stride2Variant!, channels: input.channels, filters: filters,
                                                  outHeight: output.height, outWidth: output.width)
        case .gemm, .im2col:
            // Packed 1×1 weights: each worker's block of packed columns (`GEMM.multiplyPacked`).
            if isPointwise { return PackedGEMM.kernel != nil && groups == 1 ? pointwisePackedScratch(input: input) : 0 }
            if let banded = Im2colBands.workspaceCount(k: fanIn(inputChannels: input.channels), outHeight: output.height,
                                                       outWidth: output.width) { return banded }
            let rows = im2colBlockRows(input: input, output: output)
            let columns = rows == output.height
                ? im2colBlockImages(input: input, output: output, batch: batch) * output.count / filters
                : rows * output.width
            let k = fanIn(inputChannels: input.channels)
            // Packed weights: each worker's block of packed columns after the unfolded matrix.
            let packed = ConvolutionWeights.packs(.im2col, filters: filters, k: k, groups: groups, output: output)
                ? PackedGEMM.maximumWorkers * GEMM.packedScratchCount(k: k) : 0
            return k * columns + packed
        }
    }

    /// Workspace floats a 1×1 convolution with packed weights needs: every worker's packed columns.
    func pointwisePackedScratch(input: TensorShape) -> Int {
        PackedGEMM.maximumWorkers * GEMM.packedScratchCount(k: input.channels)
    }

    /// Floats of im2col matrix unfolded at a time (8 MB): larger images are unfolded and
    /// multiplied in blocks of output rows. yolov3's first stride-2 layer would otherwise need
    /// a 50 MB workspace; GEMMs of ≥ 2M/k columns stay efficient. (A var so tests can force
    /// small blocks.)
    nonisolated(unsafe) static var im2colBlockFloats = 1 << 21

    /// Output rows per im2col block (all of them when the whole matrix fits the block size).
    func im2colBlockRows(input: TensorShape, output: TensorShape) -> Int {
        let perRow = max(1, fanIn(inputChannels: input.channels) * output.width)
        return max(1, min(output.height, Self.im2colBlockFloats / perRow))
    }

    /// Whole images unfolded side by side into one matrix (one GEMM) when an image fits the block.
    func im2colBlockImages(input: TensorShape, output: TensorShape, batch: Int) -> Int {
        let perImage = max(1, fanIn(inputChannels: input.channels) * output.height * output.width)
        return max(1, min(batch, Self.im2colBlockFloats / perImage))
    }

    /// im2col + GEMM per group, each GEMM worker adding the bias and applying the activation to
    /// the part of the output it just computed (`GEMM.multiply`'s epilogue), or Winograd when
    /// `weights.winograd` is set (see `ConvolutionAlgorithm`): `input` is `C×H×W`, `output` is
    /// `filters × outH × outW`, `weights.weights` is `filters × (C/groups) × size × size`.
    /// A non-nil `timer` (profiling) gets the time of each phase (the epilogue's is the GEMM
    /// workers' mean time in it); nil reads no clock.
    ///
    /// `batch` images are channel-major, as `Network` keeps them: `input` is `C × batch × H × W`
    /// and `output` `filters × batch × outH × outW` (the same as `C×H×W` for one image). A
    /// pointwise layer is then one `GEMM.multiply` over `batch·H·W` columns; im2col unfolds the
    /// images side by side into one matrix (when a whole image fits the 8 MB block) and multiplies
    /// it once; Winograd transforms every image's tiles in one pass. Short, wide im2col matrices
    /// (the first layer's `k` = 27, the first downsampling layers') run band by band instead, each worker unfolding, multiplying
    /// and finishing its own bands of output rows (`Im2colBands`). `segments` makes the GEMM cut
    /// each image's columns as if it were alone, so a batch gives each image its own bits.
    ///
    /// `residual` (laid out as `output`): added to every output after the activation, the
    /// `[shortcut]` that follows computed here (`MemoryPlan.fusesShortcut`).
    ///
    /// `pooled` (`filters × batch × outH/2 × outW/2`): the 2×2 stride-2 `[maxpool]` that follows
    /// (`Network.fusedPools`), computed from each finished pair of output rows; only for
    /// filter-major Winograd products and im2col in bands of even rows. The pooled values are
    /// the ones the pool gives on `output`; Winograd then leaves `output` unwritten.
    func forward(input: UnsafePointer<Float>, inputShape: TensorShape, output: UnsafeMutablePointer<Float>,
                 outputShape: TensorShape, weights: ConvolutionWeights, workspace: UnsafeMutablePointer<Float>,
                 batch: Int = 1, residual: UnsafePointer<Float>? = nil, pooled: UnsafeMutablePointer<Float>? = nil) {
        var noTimer: PhaseTimer? = nil
        forward(input: input, inputShape: inputShape, output: output, outputShape: outputShape,
                weights: weights, workspace: workspace, batch: batch, residual: residual, pooled: pooled, timer: &noTimer)
    }

    func forward(input: UnsafePointer<Float>, inputShape: TensorShape, output: UnsafeMutablePointer<Float>,
                 outputShape: TensorShape, weights: ConvolutionWeights, workspace: UnsafeMutablePointer<Float>,
                 batch: Int = 1, residual: UnsafePointer<Float>? = nil, pooled: UnsafeMutablePointer<Float>? = nil,
                 timer: inout PhaseTimer?) {
        let spatial = outputShape.height * outputShape.width
        let inputPlane = inputShape.height * inputShape.width
        if let variant = weights.stride2, let transformed = weights.winograd {
            precondition(pooled == nil, "Convolutional.forward: stride-2 Winograd computes no pool (Network.fusedPools)")
            transformed.withUnsafeBufferPointer { u in
                weights.biases.withUnsafeBufferPointer { bias in
                    WinogradStride2.forward(variant, input: input, channels: inputShape.channels, height: inputShape.height,
                                            width: inputShape.width, pad: padding, output: output, filters: filters,
                                            outHeight: outputShape.height, outWidth: outputShape.width,
                                            transformed: u.baseAddress!, orientation: weights.winogradOrientation,
                                            biases: bias.baseAddress!, activation: activation, workspace: workspace,
                                            batch: batch, inputStride: inputPlane, outputStride: spatial,
                                            inputChannelStride: batch * inputPlane, outputChannelStride: batch * spatial,
                                            residual: residual, timer: &timer)
                }
            }
            return
        }
        if let transformed = weights.winograd, let variant = weights.winogradVariant {
            transformed.withUnsafeBufferPointer { u in
                weights.biases.withUnsafeBufferPointer { bias in
                    Winograd.forward(variant, input: input, channels: inputShape.channels, height: inputShape.height,
                                     width: inputShape.width, pad: padding, output: output, filters: filters,
                                     outHeight: outputShape.height, outWidth: outputShape.width,
                                     transformed: u.baseAddress!, biases: bias.baseAddress!, activation: activation,
                                     workspace: workspace, batch: batch, inputStride: inputPlane, outputStride: spatial,
                                     inputChannelStride: batch * inputPlane, outputChannelStride: batch * spatial,
                                     streamed: weights.winogradStreamed, orientation: weights.winogradOrientation,
                                     residual: residual,
                                     pooled: pooled.map { .init(base: $0, imageStride: spatial / 4, channelStride: batch * spatial / 4) },
                                     timer: &timer)
                }
            }
            return
        }
        let channelsPerGroup = inputShape.channels / groups
        let filtersPerGroup = filters / groups
        let k = fanIn(inputChannels: inputShape.channels)
        let blockRows = im2colBlockRows(input: inputShape, output: outputShape)
        let blockImages = im2colBlockImages(input: inputShape, output: outputShape, batch: batch)
        let bandRows = Im2colBands.bandRows(k: k, outHeight: outputShape.height, outWidth: outputShape.width)
        precondition(pooled == nil || (!isPointwise && groups == 1 && (bandRows ?? 1) % 2 == 0 && spatial % 4 == 0),
                     "Convolutional.forward: only im2col bands of even rows are pooled")
        let (batchColumns, channelStride) = (batch * spatial, batch * inputPlane)
        weights.weights.withUnsafeBufferPointer { w in
            weights.biases.withUnsafeBufferPointer { bias in
                for group in 0..<groups {
                    // Bias + activation run by each GEMM worker on the part of C it just computed
                    // (a local function: passed non-escaping, it allocates nothing).
                    let groupBiases = bias.baseAddress! + group * filtersPerGroup
                    let activation = self.activation
                    let outWidth = outputShape.width
                    func epilogue(_ row: Int, _ start: UnsafeMutablePointer<Float>, _ count: Int) {
                        Self.biasActivation(start, count: count, bias: groupBiases[row], activation: activation,
                                            adding: residual.map { $0 + output.distance(to: start) })
                        guard let pooled else { return }
                        // One filter's rows of a band (whole rows, an even number from an even row).
                        let within = output.distance(to: start) - row * batchColumns
                        let (image, firstRow) = (within / spatial, within % spatial / outWidth)
                        let target = pooled + row * batchColumns / 4 + image * spatial / 4 + firstRow / 2 * (outWidth / 2)
                        for pair in 0..<(count / outWidth / 2) {
                            Maxpool.poolRows(start + 2 * pair * outWidth, width: outWidth, into: target + pair * (outWidth / 2))
                        }
                    }
                    let timed = timer != nil
                    let groupInput = input + group * channelsPerGroup * channelStride
                    let groupWeights = w.baseAddress! + group * filtersPerGroup * k
                    let groupOutput = output + group * filtersPerGroup * batchColumns
                    if isPointwise, weights.weightsPacked, let kernel = PackedGEMM.kernel {
                        let seconds = GEMM.multiplyPacked(kernel, m: filtersPerGroup, n: batchColumns, k: k, packedA: groupWeights,
                                                          b: groupInput, ldb: batchColumns, c: groupOutput, ldc: batchColumns,
                                                          scratch: workspace, segments: batch, timeEpilogue: timed,
                                                          epilogue: epilogue)
                        timer?.lap(\.gemm, \.epilogue, secondSeconds: seconds)
                        continue
                    }
                    if isPointwise {
                        let seconds = GEMM.multiply(m: filtersPerGroup, n: batchColumns, k: k, a: groupWeights, lda: k,
                                                    b: groupInput, ldb: batchColumns, c: groupOutput, ldc: batchColumns,
                                                    segments: batch, timeEpilogue: timed, epilogue: epilogue)
                        timer?.lap(\.gemm, \.epilogue, secondSeconds: seconds)
                        continue
                    }
                    if let bandRows {
                        let group = Im2colBands.Group(
                            input: groupInput, channels: channelsPerGroup, height: inputShape.height, width: inputShape.width,
                            channelStride: channelStride, size: size, stride: stride, strideY: strideY, pad: padding * dilation,
                            dilation: dilation, weights: groupWeights, filters: filtersPerGroup, k: k, output: groupOutput,
                            outHeight: outputShape.height, outWidth: outputShape.width, ldc: batchColumns, batch: batch)
                        let seconds = Im2colBands.forward(group, bandRows: bandRows, workspace: workspace, timed: timed,
                                                          epilogue: epilogue)
                        timer?.lap(\.gemm, shares: (\.im2col, seconds.im2col), (\.epilogue, seconds.epilogue))
                        continue
                    }
                    if blockRows == outputShape.height {
                        // Whole images, `blockImages` at a time side by side: one GEMM each.
                        for first in Swift.stride(from: 0, to: batch, by: blockImages) {
                            let images = min(blockImages, batch - first)
                            for image in 0..<images {
                                Im2col.unfold(groupInput + (first + image) * inputPlane, channels: channelsPerGroup,
                                              height: inputShape.height, width: inputShape.width, size: size, stride: stride,
                                              pad: padding * dilation, strideY: strideY, dilation: dilation,
                                              channelStride: channelStride, rowPitch: images * spatial,
                                              into: workspace + image * spatial)
                            }
                            timer?.lap(\.im2col)
                            let seconds = multiply(weights, k: k, a: groupWeights, b: workspace, columns: images * spatial,
                                                   scratch: workspace + k * blockImages * spatial,
                                                   c: groupOutput + first * spatial, ldc: batchColumns, segments: images,
                                                   timed: timed, epilogue: epilogue)
                            timer?.lap(\.gemm, \.epilogue, secondSeconds: seconds)
                        }
                        continue
                    }
                    for image in 0..<batch {
                        for first in Swift.stride(from: 0, to: outputShape.height, by: blockRows) {
                            let rows = first..<min(outputShape.height, first + blockRows)
                            let columns = rows.count * outputShape.width
                            Im2col.unfold(groupInput + image * inputPlane, channels: channelsPerGroup, height: inputShape.height,
                                          width: inputShape.width, size: size, stride: stride, pad: padding * dilation,
                                          strideY: strideY, dilation: dilation, outputRows: rows, channelStride: channelStride,
                                          into: workspace)
                            timer?.lap(\.im2col)
                            let seconds = multiply(weights, k: k, a: groupWeights, b: workspace, columns: columns,
                                                   scratch: workspace + k * blockRows * outputShape.width,
                                                   c: groupOutput + image * spatial + first * outputShape.width,
                                                   ldc: batchColumns, segments: 1, timed: timed, epilogue: epilogue)
                            timer?.lap(\.gemm, \.epilogue, secondSeconds: seconds)
                        }
                    }
                }
            }
        }
    }

    /// The unfolded matrix `b` (`k × columns`) times the layer's weights `a` into `c`: through
    /// the packed kernel when the weights were packed at load (`scratch`: the workers' packed
    /// columns, after the unfolded block in the workspace), else `GEMM.multiply`. Groups are 1
    /// when packed (`ConvolutionWeights.packs`).
    private func multiply(_ weights: ConvolutionWeights, k: Int, a: UnsafePointer<Float>, b: UnsafePointer<Float>,
                          columns: Int, scratch: UnsafeMutablePointer<Float>, c: UnsafeMutablePointer<Float>, ldc: Int,
                          segments: Int, timed: Bool, epilogue: GEMM.RowEpilogue) -> Double {
        if weights.weightsPacked, let kernel = PackedGEMM.kernel {
            return GEMM.multiplyPacked(kernel, m: filters, n: columns, k: k, packedA: a, b: b, ldb: columns, c: c, ldc: ldc,
                                       scratch: scratch, segments: segments, timeEpilogue: timed, epilogue: epilogue)
        }
        return GEMM.multiply(m: filters / groups, n: columns, k: k, a: a, lda: k, b: b, ldb: columns, c: c, ldc: ldc,
                             segments: segments, timeEpilogue: timed, epilogue: epilogue)
    }
}
