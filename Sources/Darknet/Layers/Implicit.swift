import Foundation
import Kernels

/// `[implicit]` (AlexeyAB's YOLOR implicit knowledge): a learned constant, output
/// `filters × atoms × 1` whatever the input (`forward_implicit_layer`: `output[i] =
/// weights[i mod (filters·atoms)]`). The weights file holds its `filters · atoms` floats (no
/// biases). Other layers combine it with feature maps: `[scale_channels]` multiplies a
/// `C×H×W` map by a `C×1×1` one.
public struct Implicit: Sendable, Hashable {
    public var filters: Int
    public var atoms: Int
    /// AlexeyAB's initialisation, `mean + U(−std, std)`: the range of the synthetic weights.
    public var mean: Float
    public var std: Float

    static let keys: Set<String> = ["filters", "atoms", "mean", "std"]
    static let honouredKeys: Set<String> = ["filters", "atoms"]

    public var outputShape: TensorShape { TensorShape(channels: filters, height: atoms, width: 1) }
}

/// An `[implicit]` layer's `filters · atoms` values, channel-major.
public struct ImplicitWeights: Sendable {
    public var values: [Float]

    public init(values: [Float]) { self.values = values }
}

extension Implicit: LayerType {
    static let sectionNames = ["implicit"]

    static func limitedKeys(_ limits: ModelLimits) -> [(key: String, limit: Int)] {
        [("filters", limits.maximumChannels), ("atoms", limits.maximumInputSide)]
    }

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        let filters = try section.int("filters", default: 128)
        let atoms = try section.int("atoms", default: 1)
        for (key, value) in [("filters", filters), ("atoms", atoms)] where value < 1 {
            throw CfgError.invalidValue(section.location(key), value: String(value), expected: "an integer ≥ 1")
        }
        let implicit = Implicit(filters: filters, atoms: atoms, mean: try section.float("mean", default: 0),
                                std: try section.float("std", default: 0.2))
        return ParsedLayer(kind: .implicit(implicit), input: context.input, output: implicit.outputShape)
    }

    func parameterCount(input: TensorShape) -> (count: Int, key: String)? {
        let (count, overflow) = filters.multipliedReportingOverflow(by: atoms)
        return (overflow ? Int.max : count, "filters")
    }

    func weightsParts(_ layer: Layer, next: Layer?) -> [WeightsPart] {
        [WeightsPart(name: "implicit weights", count: filters * atoms, synthetic: (mean - std, mean + std))]
    }

    func weights(_ layer: Layer, from arrays: consuming [[Float]], transposed: Bool) -> LayerWeights? {
        .implicit(ImplicitWeights(values: arrays[0]))
    }

    /// Each channel's `atoms` values, once per image of the batch (`C × batch × atoms × 1`).
    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        guard case .implicit(let weights) = run.weights else { preconditionFailure("implicit \(run.layer.index) has no weights") }
        weights.values.withUnsafeBufferPointer { values in
            for c in 0..<filters {
                for b in 0..<run.batch {
                    (run.output + (c * run.batch + b) * atoms).update(from: values.baseAddress! + c * atoms, count: atoms)
                }
            }
        }
    }

    /// AlexeyAB's `make_implicit_layer` line: filters × atoms, in his dialect then
    /// ` \t mean=%.2f, std=%.2f `.
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String {
        String(format: "implicit Layer: %d x %d", filters, atoms)
            + (dialect == .alexeyAB ? String(format: " \t mean=%.2f, std=%.2f ", Double(mean), Double(std)) : "")
    }

    func optionsSummary(_ layer: Layer) -> String { "\(filters)x\(atoms)" }
}
