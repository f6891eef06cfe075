import Foundation
import Kernels

/// `[connected]`: the input flattened to `inputs = C·H·W` values → `output × 1 × 1`,
/// `out[o] = Σᵢ W[o][i] · x[i] + b[o]` then `activation` (darknet's `forward_connected_layer`:
/// a GEMM with the `outputs × inputs` weight matrix, then at inference batch norm with the
/// rolling statistics, `scale_bias`, `add_bias`, `activate_array`). Batch norm is folded into
/// the weights at load (`ConvolutionWeights.folding`, `ConnectedWeights`). darknet's defaults: output 1,
/// activation logistic, batch_normalize 0.
public struct Connected: Sendable, Hashable {
    public var outputs: Int
    public var batchNormalize: Bool
    /// How batch norm is folded into the weights: the cfg's dialect's (`CfgDialect.batchNormFold`).
    public var batchNormFold: BatchNormFold = .pjreddie
    public var activation: Activation

    static let keys: Set<String> = ["output", "activation", "batch_normalize"]
    /// Keys read and honoured; the other `keys` are training-only (ignored) or `rejectedKeys`.
    static let honouredKeys: Set<String> = ["output", "activation", "batch_normalize"]
    /// Keys that are a typed error (naming key and line) unless darknet's default, with a value that triggers it.
    static let rejectedKeys: [String: String] = [:]

    static func parse(_ section: CfgSection) throws -> Connected {
        let outputs = try section.int("output", default: 1)
        if outputs < 1 {
            throw CfgError.invalidValue(section.location("output"), value: String(outputs), expected: "an integer ≥ 1")
        }
        let activation = try Activation(cfgName: section.string("activation", default: "logistic"),
                                        location: section.location("activation"))
        return Connected(outputs: outputs, batchNormalize: try section.int("batch_normalize", default: 0) != 0,
                         activation: activation)
    }

    public func outputShape(input: TensorShape) -> TensorShape {
        TensorShape(channels: outputs, height: 1, width: 1)
    }

    /// darknet's BFLOPs would be `2 · inputs · outputs / 1e9`; its table prints none for this layer.
    public func bflops(input: TensorShape) -> Double { 2.0 * Double(input.count) * Double(outputs) / 1e9 }

    /// One image's `inputCount` values → `outputs` values.
    func forward(input: UnsafePointer<Float>, inputCount: Int, output: UnsafeMutablePointer<Float>,
                 weights: ConnectedWeights, threads: Int) {
        weights.weights.withUnsafeBufferPointer { w in
            for o in 0..<outputs {
                let row = w.baseAddress! + o * inputCount
                var sum: Float = 0
                for i in 0..<inputCount { sum += row[i] * input[i] }
                output[o] = sum + weights.biases[o]
            }
        }
        activation.apply(output, count: outputs, threads: threads)
    }
}

/// A `[connected]` layer's parameters: `outputs × inputs` weights, row-major (transposed at
/// load when the file says so), and one bias per output, batch norm folded in.
public struct ConnectedWeights: Sendable {
    public var weights: [Float]
    public var biases: [Float]

    public init(weights: [Float], biases: [Float]) {
        self.weights = weights
        self.biases = biases
    }
}

extension Connected: LayerType {
    static let sectionNames = ["connected", "conn"]

    static func limitedKeys(_ limits: ModelLimits) -> [(key: String, limit: Int)] { [("output", limits.maximumChannels)] }

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        var connected = try parse(section)
        connected.batchNormFold = context.dialect.batchNormFold
        connected.activation = context.dialect.activation(connected.activation)
        return ParsedLayer(kind: .connected(connected), input: context.input, output: connected.outputShape(input: context.input))
    }

    func parameterCount(input: TensorShape) -> (count: Int, key: String)? {
        let (count, overflow) = outputs.multipliedReportingOverflow(by: input.checkedCount ?? Int.max)
        return (overflow ? Int.max : count, "output")
    }

    /// darknet's `load_connected_weights`: biases, the `outputs × inputs` weights, then with
    /// batch_normalize the statistics.
    func weightsParts(_ layer: Layer, next: Layer?) -> [WeightsPart] {
        let inputs = layer.input.count
        return [.biases(outputs), .weights(outputs * inputs, fanIn: inputs)] + (batchNormalize ? WeightsPart.batchNorm(outputs) : [])
    }

    /// The weights transposed when the file is of the kind darknet transposes (`inputs × outputs`
    /// stored), then batch norm folded in.
    func weights(_ layer: Layer, from arrays: consuming [[Float]], transposed: Bool) -> LayerWeights? {
        var weights = arrays[1]
        if transposed {
            let (rows, columns) = (layer.input.count, outputs)
            for r in 0..<rows {
                for c in 0..<columns { weights[c * rows + r] = arrays[1][r * columns + c] }
            }
        }
        guard batchNormalize else { return .connected(ConnectedWeights(weights: weights, biases: arrays[0])) }
        let folded = ConvolutionWeights.folding(weights: weights, biases: arrays[0], scales: arrays[2],
                                                rollingMean: arrays[3], rollingVariance: arrays[4], fold: batchNormFold)
        return .connected(ConnectedWeights(weights: folded.weights, biases: folded.biases))
    }

    func workspaceCount(_ layer: Layer, _ context: PlanningContext) -> Int {
        LayerRun.eachImageCount(layer, batch: context.batch)
    }

    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        guard case .connected(let weights) = run.weights else { preconditionFailure("connected \(run.layer.index) has no weights") }
        run.eachImage { input, output in
            forward(input: input, inputCount: run.layer.input.count, output: output, weights: weights, threads: run.threads)
        }
    }

    /// `make_connected_layer`'s line: inputs and outputs.
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String {
        String(format: "connected                            %4d  ->  %4d", layer.input.count, outputs)
    }

    func optionsSummary(_ layer: Layer) -> String { "\(outputs) \(activation.cfgName)" }
}
