import Foundation
import Kernels

/// `[crnn]` (AlexeyAB's convolutional RNN: yolov3-tiny_occlusion_track): three convolutions
/// of one size, stride and padding — `input` (C → hidden), `self` (hidden → hidden) and
/// `output` (hidden → output) — and a hidden state (`forward_crnn_layer`):
/// `state = input(x) + self(state before)`, output `= output(state)`, each convolution with
/// its bias (batch norm folded) and the activation.
///
/// His state lives from frame to frame of a video; `detector test` runs one image, on the
/// state his network starts with, zeros. The engine runs every image that way: `self` of
/// zeros is its bias through the activation, one value per channel. (So a stream is not
/// tracked through time as his video demo would; `[crnn]`'s `shortcut=1`, which adds the state
/// before, adds those zeros too.) Stride 1 only: his layer's sizes assume it.
public struct CRNN: Sendable, Hashable {
    public var size: Int
    public var padding: Int
    public var hidden: Int
    public var outputFilters: Int
    public var batchNormalize: Bool
    public var activation: Activation
    /// The cfg's dialect's batch-norm folding (`CfgDialect.batchNormFold`).
    public var batchNormFold: BatchNormFold = .pjreddie

    /// (pjreddie's parser names the two sizes `output_filters` and `hidden_filters`, with size
    /// 3 and pad 1 fixed; both spellings are read.)
    static let honouredKeys: Set<String> = ["size", "pad", "padding", "output", "hidden", "output_filters", "hidden_filters",
                                            "activation", "batch_normalize", "shortcut", "stride"]
    static let keys: Set<String> = honouredKeys.union(["groups", "dilation", "xnor"])
    static let rejectedKeys: [String: String] = ["groups": "2", "dilation": "2", "xnor": "1"]

    static func parse(_ section: CfgSection) throws -> CRNN {
        let pjreddie = section.option("output_filters") != nil || section.option("hidden_filters") != nil
        let size = try section.int("size", default: 3)
        var padding = try section.int("padding", default: 0)
        if try pjreddie || section.int("pad", default: 0) != 0 { padding = size / 2 }
        let layer = CRNN(size: size, padding: padding,
                         hidden: try section.int(section.option("hidden") != nil ? "hidden" : "hidden_filters", default: 1),
                         outputFilters: try section.int(section.option("output") != nil ? "output" : "output_filters", default: 1),
                         batchNormalize: try section.int("batch_normalize", default: 0) != 0,
                         activation: try Activation(cfgName: section.string("activation", default: "logistic"),
                                                    location: section.location("activation")))
        for (key, value) in [("size", size), ("hidden", layer.hidden), ("output", layer.outputFilters)] where value < 1 {
            throw CfgError.invalidValue(section.location(key), value: String(value), expected: "an integer ≥ 1")
        }
        if try section.int("stride", default: 1) != 1 {
            throw CfgError.unsupported(section.location("stride"), what: "stride other than 1 in [crnn]")
        }
        for (key, off) in [("groups", 1), ("dilation", 1), ("xnor", 0)] where try section.int(key, default: off) != off {
            throw CfgError.unsupported(section.location(key), what: "\(key) in [crnn]")
        }
        return layer
    }

    /// The three convolutions' shapes on an input of `channels`: input, self, output.
    func convolutions(inputChannels: Int) -> [(inputs: Int, filters: Int)] {
        [(inputChannels, hidden), (hidden, hidden), (hidden, outputFilters)]
    }
}

/// A `[crnn]`'s three folded convolutions: input, self, output.
public struct CRNNWeights: Sendable {
    public var convolutions: [ConvolutionWeights]

    public init(convolutions: [ConvolutionWeights]) { self.convolutions = convolutions }
}

extension CRNN: LayerType {
    static let sectionNames = ["crnn"]

    static func limitedKeys(_ limits: ModelLimits) -> [(key: String, limit: Int)] {
        [("size", limits.maximumKernelSide), ("padding", limits.maximumKernelSide), ("hidden", limits.maximumChannels),
         ("output", limits.maximumChannels)]
    }

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        var crnn = try parse(section)
        crnn.batchNormFold = context.dialect.batchNormFold
        crnn.activation = context.dialect.activation(crnn.activation)
        let input = context.input
        let height = input.height + 2 * crnn.padding - crnn.size + 1, width = input.width + 2 * crnn.padding - crnn.size + 1
        guard height == input.height, width == input.width else {
            throw CfgError.shapeMismatch(section.location("size"), layer: context.index,
                                         detail: "[crnn] keeps its input's size: size=\(crnn.size) needs padding=\(crnn.size / 2) (pad=1), got \(crnn.padding)")
        }
        return ParsedLayer(kind: .crnn(crnn), input: input,
                           output: TensorShape(channels: crnn.outputFilters, height: height, width: width))
    }

    func parameterCount(input: TensorShape) -> (count: Int, key: String)? {
        var total = 0
        for (inputs, filters) in convolutions(inputChannels: input.channels) {
            let area: Int = size * size
            let kernel = inputs.multipliedReportingOverflow(by: area)
            let count = kernel.partialValue.multipliedReportingOverflow(by: filters)
            let sum = total.addingReportingOverflow(count.partialValue)
            if kernel.overflow || count.overflow || sum.overflow { return (Int.max, "hidden") }
            total = sum.partialValue
        }
        return (total, "hidden")
    }

    /// `load_weights`' three convolutions in turn, each as `[convolutional]` stores it.
    func weightsParts(_ layer: Layer, next: Layer?) -> [WeightsPart] {
        var parts: [WeightsPart] = []
        for (inputs, filters) in convolutions(inputChannels: layer.input.channels) {
            let fanIn = inputs * size * size
            parts.append(.biases(filters))
            if batchNormalize { parts += WeightsPart.batchNorm(filters) }
            parts.append(.weights(filters * fanIn, fanIn: fanIn))
        }
        return parts
    }

    func weights(_ layer: Layer, from arrays: consuming [[Float]], transposed: Bool) -> LayerWeights? {
        let parts = arrays
        let each = batchNormalize ? 5 : 2
        let folded = (0..<3).map { i in
            let a = Array(parts[(i * each)..<((i + 1) * each)])
            guard batchNormalize else { return ConvolutionWeights(weights: a[1], biases: a[0]) }
            return ConvolutionWeights.folding(weights: a[4], biases: a[0], scales: a[1], rollingMean: a[2], rollingVariance: a[3],
                                              fold: batchNormFold)
        }
        return .crnn(CRNNWeights(convolutions: folded))
    }

    /// One image's unfolded input (the larger of the two convolutions' `k × H·W`) and the state.
    func workspaceCount(_ layer: Layer, _ context: PlanningContext) -> Int {
        let plane = layer.input.height * layer.input.width
        let k = max(layer.input.channels, hidden) * size * size
        return k * plane + hidden * plane + LayerRun.eachImageCount(layer, batch: context.batch)
    }

    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        guard case .crnn(let weights) = run.weights else { preconditionFailure("crnn \(run.layer.index) has no weights") }
        let shape = run.layer.input
        let plane = shape.height * shape.width
        let imageFloats = LayerRun.eachImageCount(run.layer, batch: run.batch)
        let columns = run.workspace + imageFloats
        let state = columns + max(shape.channels, hidden) * size * size * plane
        run.eachImage { input, output in
            convolve(input, channels: shape.channels, weights: weights.convolutions[0], into: state, shape: shape,
                     columns: columns, threads: run.threads)
            // The self convolution of the zero state: its bias through the activation.
            let biases = weights.convolutions[1].biases
            for c in 0..<hidden {
                let value = activation.value(0 + biases[c])
                for i in 0..<plane { state[c * plane + i] += value }
            }
            convolve(state, channels: hidden, weights: weights.convolutions[2], into: output, shape: shape, columns: columns,
                     threads: run.threads)
        }
    }

    /// One convolution (`size`, stride 1, `padding`) of a `channels × H × W` image into
    /// `into`, with its bias and the activation: darknet's im2col + GEMM.
    private func convolve(_ image: UnsafePointer<Float>, channels: Int, weights: ConvolutionWeights,
                          into: UnsafeMutablePointer<Float>, shape: TensorShape, columns: UnsafeMutablePointer<Float>, threads: Int) {
        let plane = shape.height * shape.width, k = channels * size * size
        Im2col.unfold(image, channels: channels, height: shape.height, width: shape.width, size: size, stride: 1, pad: padding,
                      into: columns, threads: threads)
        weights.weights.withUnsafeBufferPointer { w in
            weights.biases.withUnsafeBufferPointer { biases in
                _ = GEMM.multiply(m: weights.biases.count, n: plane, k: k, a: w.baseAddress!, lda: k, b: columns, ldb: plane,
                              c: into, ldc: plane, threads: threads) { filter, start, count in
                    Epilogue.biasActivation(start, count: count, bias: biases[filter], activation: activation)
                }
            }
        }
    }

    /// His `l.bflops`: the Float sum of his three convolutions' (`make_crnn_layer`).
    func alexeyABBflops(_ layer: Layer) -> Float { convolutionRows(layer).reduce(Float(0)) { $0 + $1.bflops } }

    /// AlexeyAB's `make_crnn_layer` line: input height × width × channels, output filters; in
    /// his dialect then the lines his `make_convolutional_layer` prints for the input, self and
    /// output convolutions, without an index.
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String {
        let i = layer.input
        let row = String(format: "CRNN Layer: %d x %d x %d image, %d filters", i.height, i.width, i.channels, outputFilters)
        guard dialect == .alexeyAB else { return row }
        return ([row] + convolutionRows(layer).map(\.row)).joined(separator: "\n")
    }

    /// The three convolutions' rows in AlexeyAB's table and their BFLOPs (stride 1, one group).
    private func convolutionRows(_ layer: Layer) -> [(row: String, bflops: Float)] {
        convolutions(inputChannels: layer.input.channels).map { inputs, filters in
            let input = TensorShape(channels: inputs, height: layer.input.height, width: layer.input.width)
            let output = TensorShape(channels: filters, height: layer.output.height, width: layer.output.width)
            let bflops = AlexeyABTable.convolutionBflops(filters: filters, inputChannels: inputs, groups: 1, size: size, output: output)
            let row = AlexeyABTable.convolution(kind: "conv  ", filters: filters, groups: 1, size: size, strideX: 1, strideY: 1,
                                                dilation: 1, input: input, output: output, bflops: bflops)
            return (row, bflops)
        }
    }

    func optionsSummary(_ layer: Layer) -> String { "hidden \(hidden) \(size)x\(size) \(activation.cfgName)" }
}
