import Foundation
import Kernels

/// `[local]` (pjreddie's local_layer.c, YOLOv1): a convolution whose weights differ at every
/// output position. Input `C×H×W` → `filters × outH × outW` with
/// `outH = (H − (pad ? 1 : size)) / stride + 1` (`local_out_height`; `pad` is a flag).
///
/// `forward_local_layer`: the output starts as the biases (one per output element), the input
/// is unfolded by `im2col_cpu` with `pad` pixels of padding (the flag's value), and at each
/// location `j` the `filters × (size²·C)` weight block `j` multiplies column `j`, summed onto
/// the bias in `k` order (darknet's `gemm_nn`); then the activation. Weights in the file,
/// after the biases: `locations × filters × size²·C`. With `pad=1` darknet's output size and
/// its im2col agree only for `size=3`; other sizes with `pad=1` are a typed error.
public struct Local: Sendable, Hashable {
    public var filters: Int
    public var size: Int
    public var stride: Int
    /// pjreddie's `pad` flag: 1 pixel of padding (and `outH = (H − 1)/stride + 1`).
    public var pad: Bool
    public var activation: Activation

    static let keys: Set<String> = ["filters", "size", "stride", "pad", "activation"]
    /// Keys read and honoured (all of them).
    static let honouredKeys: Set<String> = keys
    static let rejectedKeys: [String: String] = [:]

    static func parse(_ section: CfgSection) throws -> Local {
        let filters = try section.int("filters", default: 1)
        let size = try section.int("size", default: 1)
        let stride = try section.int("stride", default: 1)
        for (key, value) in [("filters", filters), ("size", size), ("stride", stride)] where value < 1 {
            throw CfgError.invalidValue(section.location(key), value: String(value), expected: "an integer ≥ 1")
        }
        let pad = try section.int("pad", default: 0)
        guard pad == 0 || pad == 1 else {
            throw CfgError.invalidValue(section.location("pad"), value: String(pad), expected: "0 or 1")
        }
        if pad == 1 && size != 3 {
            throw CfgError.unsupported(section.location("pad"),
                                       what: "pad=1 with size=\(size) in [local] (darknet's output size and its im2col disagree unless size=3)")
        }
        let activation = try Activation(cfgName: section.string("activation", default: "logistic"),
                                        location: section.location("activation"))
        return Local(filters: filters, size: size, stride: stride, pad: pad == 1, activation: activation)
    }

    /// Pure shape inference; nil when the input is smaller than the kernel (without `pad`).
    public func outputShape(input: TensorShape) -> TensorShape? {
        let shrink = pad ? 1 : size
        guard input.height >= shrink, input.width >= shrink else { return nil }
        return TensorShape(channels: filters, height: (input.height - shrink) / stride + 1,
                           width: (input.width - shrink) / stride + 1)
    }

    /// Floats of one location's weight block: `filters × size²·C`.
    func blockCount(inputChannels: Int) -> Int { filters * size * size * inputChannels }

    /// One image: `input` `C×H×W`, `output` `filters × outH × outW`; `columns` holds the
    /// `(size²·C) × locations` im2col matrix. `weights.biases` has one bias per output element.
    func forward(input: UnsafePointer<Float>, inputShape: TensorShape, output: UnsafeMutablePointer<Float>,
                 outputShape: TensorShape, weights: LocalWeights, columns: UnsafeMutablePointer<Float>, threads: Int) {
        let locations = outputShape.height * outputShape.width
        let k = size * size * inputShape.channels
        Im2col.unfold(input, channels: inputShape.channels, height: inputShape.height, width: inputShape.width,
                      size: size, stride: stride, pad: pad ? 1 : 0, into: columns, threads: threads)
        weights.biases.withUnsafeBufferPointer { biases in
            weights.weights.withUnsafeBufferPointer { w in
                for j in 0..<locations {
                    let block = w.baseAddress! + j * filters * k
                    for f in 0..<filters {
                        var sum = biases[f * locations + j]
                        let row = block + f * k
                        for i in 0..<k { sum += row[i] * columns[i * locations + j] }
                        output[f * locations + j] = sum
                    }
                }
            }
        }
        activation.apply(output, count: outputShape.count, threads: threads)
    }
}

/// A `[local]` layer's parameters: `locations × filters × size²·C` weights (one kernel per
/// output location) and one bias per output element.
public struct LocalWeights: Sendable {
    public var weights: [Float]
    public var biases: [Float]

    public init(weights: [Float], biases: [Float]) {
        self.weights = weights
        self.biases = biases
    }
}

extension Local: LayerType {
    static let sectionNames = ["local"]

    static func limitedKeys(_ limits: ModelLimits) -> [(key: String, limit: Int)] {
        [("filters", limits.maximumChannels), ("size", limits.maximumKernelSide), ("stride", limits.maximumKernelSide)]
    }

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        var local = try parse(section)
        local.activation = context.dialect.activation(local.activation)
        guard let output = local.outputShape(input: context.input) else {
            throw CfgError.inputTooSmall(context.location, layer: context.index, detail: "\(context.input) with size=\(local.size) pad=0")
        }
        return ParsedLayer(kind: .local(local), input: context.input, output: output)
    }

    /// locations × filters × size² × C (the biases are far fewer).
    func parameterCount(input: TensorShape) -> (count: Int, key: String)? {
        guard let output = outputShape(input: input) else { return nil }
        let kernel = size.multipliedReportingOverflow(by: size)
        let block = filters.multipliedReportingOverflow(by: kernel.partialValue)
        let perLocation = block.partialValue.multipliedReportingOverflow(by: input.channels)
        let total = perLocation.partialValue.multipliedReportingOverflow(by: output.height * output.width)
        let overflow = kernel.overflow || block.overflow || perLocation.overflow || total.overflow
        return (overflow ? Int.max : total.partialValue, "filters")
    }

    /// One bias per output element, then `locations × filters × size²·C` weights.
    func weightsParts(_ layer: Layer, next: Layer?) -> [WeightsPart] {
        let locations = layer.output.height * layer.output.width
        return [.biases(layer.output.count),
                .weights(locations * blockCount(inputChannels: layer.input.channels), fanIn: size * size * layer.input.channels)]
    }

    func weights(_ layer: Layer, from arrays: consuming [[Float]], transposed: Bool) -> LayerWeights? {
        .local(LocalWeights(weights: arrays[1], biases: arrays[0]))
    }

    /// The im2col columns (after one gathered image and its output in a batch).
    func workspaceCount(_ layer: Layer, _ context: PlanningContext) -> Int {
        size * size * layer.input.channels * layer.output.height * layer.output.width + LayerRun.eachImageCount(layer, batch: context.batch)
    }

    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        guard case .local(let weights) = run.weights else { preconditionFailure("local \(run.layer.index) has no weights") }
        let columns = run.workspace + LayerRun.eachImageCount(run.layer, batch: run.batch)
        run.eachImage {
            forward(input: $0, inputShape: run.layer.input, output: $1, outputShape: run.layer.output, weights: weights,
                    columns: columns, threads: run.threads)
        }
    }

    /// `make_local_layer`'s line: input, filters and output, each height × width × channels.
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String {
        let (i, o) = (layer.input, layer.output)
        return String(format: "Local Layer: %d x %d x %d image, %d filters -> %d x %d x %d image",
                      i.height, i.width, i.channels, filters, o.height, o.width, o.channels)
    }

    func optionsSummary(_ layer: Layer) -> String { "\(filters) \(size)x\(size)/\(stride) \(activation.cfgName)" }
}
