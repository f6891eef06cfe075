import Foundation
import Kernels

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
///
/// AlexeyAB's `share_index` (TridentNet, resnet152_trident): the layer uses the weights,
/// biases and batch-norm statistics of an earlier convolution of the same shape, with its own
/// stride, dilation and activation; the weights file holds nothing for it. (His
/// `fuse_conv_batchnorm` folds the shared arrays once, with the earlier layer.)
public struct Convolutional: Sendable, Hashable {
    public var filters: Int
    public var size: Int
    /// The horizontal stride (`stride_x`, default `stride`; darknet's `l.stride`).
    public var stride: Int
    public var padding: Int
    public var groups: Int
    public var batchNormalize: Bool
    /// How batch norm is folded into the weights: the cfg's dialect's (`CfgDialect.batchNormFold`).
    public var batchNormFold: BatchNormFold = .pjreddie
    public var activation: Activation
    /// The vertical stride (`stride_y`, default `stride`).
    public var strideY: Int
    /// Spacing of the kernel taps (`dilation`, default 1).
    public var dilation: Int
    /// The layer whose parameters this one uses (`share_index`, made absolute); nil for its own.
    public var sharesWeightsOf: Int?
    /// AlexeyAB's `xnor=1`: signs of the weights and inputs (`XnorConvolution`).
    public var xnor = false
    /// AlexeyAB's `bin_output=1` on an XNOR layer: on the CPU his `calculate_binary_weights`
    /// makes its activation linear, unless a `[route]`, `[shortcut]`, `[scale_channels]` or
    /// `[sam]` reads its output (`ModelDescription.applyBinaryOutputs`).
    public var binOutput = false

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
                                            "stride_x", "stride_y", "dilation", "share_index", "xnor", "bin_output"]
    /// Keys that are a typed error (naming key and line) unless darknet's default, with a value that triggers it.
    static let rejectedKeys: [String: String] = ["binary": "1", "flipped": "1", "dot": "0.5", "antialiasing": "1", "assisted_excitation": "1", "sway": "1", "rotate": "1", "stretch": "1", "stretch_sway": "1", "deform": "1", "coordconv": "1"]

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
        for key in ["binary", "flipped"] where try section.int(key, default: 0) != 0 {
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
        // AlexeyAB's make_convolutional_layer runs an XNOR layer as one group; his bit path
        // has no dilation and one stride.
        let xnor = try section.int("xnor", default: 0) != 0
        if xnor && (dilation != 1 || strideX != strideY) {
            throw CfgError.unsupported(section.location("xnor"), what: "xnor=1 with dilation or stride_x ≠ stride_y")
        }
        var conv = Convolutional(filters: filters, size: size, stride: strideX, padding: padding, groups: xnor ? 1 : groups,
                                 batchNormalize: try section.int("batch_normalize", default: 0) != 0,
                                 activation: activation, strideY: strideY, dilation: dilation)
        conv.xnor = xnor
        conv.binOutput = try xnor && section.int("bin_output", default: 0) != 0
        return conv
    }

    /// AlexeyAB's options this engine does not implement, with the value that means "off"
    /// (its `parse_convolutional` defaults). Setting one to anything else is a typed error
    /// naming the key and its line, never silently ignored. `angle` only matters with
    /// sway/rotate/stretch, which are rejected here.
    static let unhonoured: [(key: String, off: Int)] = [
        ("antialiasing", 0), ("assisted_excitation", 0), ("deform", 0), ("sway", 0), ("rotate", 0),
        ("stretch", 0), ("stretch_sway", 0), ("coordconv", 0),
    ]

    static func rejectUnhonoured(_ section: CfgSection) throws {
        for (key, off) in unhonoured where try section.int(key, default: off) != off {
            throw CfgError.unsupported(section.location(key), what: "\(key) in [convolutional]")
        }
        if try section.float("dot", default: 0) != 0 {
            throw CfgError.unsupported(section.location("dot"), what: "dot in [convolutional]")
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
}

extension Convolutional: LayerType {
    static let sectionNames = ["convolutional", "conv"]

    static func limitedKeys(_ limits: ModelLimits) -> [(key: String, limit: Int)] {
        [("filters", limits.maximumChannels), ("size", limits.maximumKernelSide), ("stride", limits.maximumKernelSide),
         ("stride_x", limits.maximumKernelSide), ("stride_y", limits.maximumKernelSide), ("dilation", limits.maximumKernelSide),
         ("padding", limits.maximumKernelSide), ("groups", limits.maximumChannels)]
    }

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        let conv = try parse(section)
        let input = context.input
        if input.channels % conv.groups != 0 {
            throw CfgError.invalidValue(section.location("groups"), value: String(conv.groups),
                                        expected: "a divisor of the \(input.channels) input channels")
        }
        guard let output = conv.outputShape(input: input) else {
            let strides = "stride=\(conv.stride)" + (conv.strideY == conv.stride ? "" : " stride_y=\(conv.strideY)")
            throw CfgError.inputTooSmall(context.location, layer: context.index,
                                         detail: "\(input) with size=\(conv.size) \(strides) padding=\(conv.padding)")
        }
        var folded = conv
        folded.batchNormFold = context.dialect.batchNormFold
        folded.activation = context.dialect.activation(conv.activation)
        folded.sharesWeightsOf = try sharedSource(section, conv, in: context)
        return ParsedLayer(kind: .convolutional(folded), input: input, output: output)
    }

    /// The convolution whose parameters `share_index` names (relative when negative, as
    /// AlexeyAB's parser reads it; followed to the layer that holds them), checked to have the
    /// same filters, size, groups and input channels; nil without the key.
    static func sharedSource(_ section: CfgSection, _ conv: Convolutional, in context: LayerContext) throws -> Int? {
        guard section.option("share_index") != nil else { return nil }
        let value = try section.int("share_index", default: 0)
        let index = value < 0 ? context.index + value : value
        guard index >= 0, index < context.index else {
            throw CfgError.layerReference(section.location("share_index"), layer: context.index, index: value, available: context.index)
        }
        let source = context.layers[index]
        guard case .convolutional(let other) = source.kind, other.filters == conv.filters, other.size == conv.size,
              other.groups == conv.groups, source.input.channels == context.input.channels else {
            throw CfgError.invalidValue(section.location("share_index"), value: String(value),
                                        expected: "a [convolutional] layer before it with the same filters, size, groups and input channels")
        }
        return other.sharesWeightsOf ?? index
    }

    /// filters × C/groups × size², computed without overflow.
    func parameterCount(input: TensorShape) -> (count: Int, key: String)? {
        let kernel = size.multipliedReportingOverflow(by: size)
        let fanIn = (input.channels / groups).multipliedReportingOverflow(by: kernel.partialValue)
        let total = filters.multipliedReportingOverflow(by: fanIn.partialValue)
        return (kernel.overflow || fanIn.overflow || total.overflow ? Int.max : total.partialValue, "filters")
    }

    /// darknet's `load_convolutional_weights`: biases, with batch_normalize the statistics, then
    /// the weights. (The synthetic scales are a quarter before a `[shortcut]`, so residual sums stay bounded.)
    func weightsParts(_ layer: Layer, next: Layer?) -> [WeightsPart] {
        guard sharesWeightsOf == nil else { return [] }
        var feedsShortcut = false
        if let next, case .shortcut = next.kind { feedsShortcut = true }
        let fanIn = fanIn(inputChannels: layer.input.channels)
        return [.biases(filters)] + (batchNormalize ? WeightsPart.batchNorm(filters, scale: feedsShortcut ? 0.25 : 1) : [])
            + [.weights(filters * fanIn, fanIn: fanIn)]
    }

    /// (`WeightsReader` folds a convolution's weights as it copies them, so it never asks this.)
    func weights(_ layer: Layer, from arrays: consuming [[Float]], transposed: Bool) -> LayerWeights? {
        guard batchNormalize else { return .convolution(ConvolutionWeights(weights: arrays[1], biases: arrays[0])) }
        return .convolution(.folding(weights: arrays[4], biases: arrays[0], scales: arrays[1], rollingMean: arrays[2],
                                     rollingVariance: arrays[3], fold: batchNormFold))
    }

    func workspaceCount(_ layer: Layer, _ context: PlanningContext) -> Int {
        PreparedConvolution.workspaceCount(layer, self, context)
    }

    func bflops(_ layer: Layer) -> Double { bflops(input: layer.input, output: layer.output) }

    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        guard let convolution = run.convolution else { preconditionFailure("convolution \(run.layer.index) has no weights") }
        let io = ConvolutionIO(input: run.input, output: run.output, images: run.batch, residual: run.residual, pooled: run.pooled)
        convolution.route.run(io, workspace: run.workspace, context: run.context, timer: &timer)
    }

    /// His `l.bflops`: darknet's, divided by 32 for an XNOR layer (`make_convolutional_layer`).
    func alexeyABBflops(_ layer: Layer) -> Float {
        let value = AlexeyABTable.convolutionBflops(filters: filters, inputChannels: layer.input.channels, groups: groups,
                                                    size: size, output: layer.output)
        return xnor ? value / 32 : value
    }

    /// `make_convolutional_layer`'s line: pjreddie's `conv  %5d %2d x%2d /%2d  `, the shapes,
    /// `%5.3f BFLOPs` (with AlexeyAB's `%2dx%2d/%2dx%2d` when stride_y differs from stride_x,
    /// `%2d x%2d/%2d(%1d)` with a dilation and `convX` for XNOR); AlexeyAB's own
    /// (`AlexeyABTable.convolution`) in his dialect.
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String {
        if dialect == .alexeyAB {
            let kind = xnor ? (binOutput ? "convXB" : "convX ") : sharesWeightsOf != nil ? "convS " : "conv  "
            return AlexeyABTable.convolution(kind: kind, filters: filters, groups: groups, size: size, strideX: stride,
                                             strideY: strideY, dilation: dilation, input: layer.input, output: layer.output,
                                             bflops: alexeyABBflops(layer))
        }
        let kernel: String
        if strideY != stride {
            kernel = String(format: "conv  %5d %2dx%2d/%2dx%2d ", filters, size, size, stride, strideY)
        } else if dilation > 1 {
            kernel = String(format: "conv  %5d %2d x%2d/%2d(%1d)", filters, size, size, stride, dilation)
        } else {
            kernel = String(format: "conv  %5d %2d x%2d /%2d  ", filters, size, size, stride)
        }
        return (xnor ? "convX" + kernel.dropFirst(5) : kernel) + layer.tableShapes + String(format: "  %5.3f BFLOPs", layer.bflops)
    }

    /// `32 3x3/1 leaky`, `3x3/1x2` for stride_x × stride_y, then ` groups 2`, ` dilation 2`.
    func optionsSummary(_ layer: Layer) -> String {
        let grouped = groups > 1 ? " groups \(groups)" : ""
        let strides = strideY == stride ? "\(stride)" : "\(stride)x\(strideY)"
        let dilated = dilation > 1 ? " dilation \(dilation)" : ""
        return "\(filters) \(size)x\(size)/\(strides) \(activation.cfgName)\(grouped)\(dilated)"
    }
}
