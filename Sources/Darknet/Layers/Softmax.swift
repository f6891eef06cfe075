import Kernels
import Foundation
import YOLO

/// `[softmax]`: shape unchanged; the `C·H·W` inputs split into `groups` consecutive runs,
/// each replaced by `exp(x/t − max/t) / Σ exp(x/t − max/t)` with `t = temperature` (darknet's
/// `softmax` in blas.c, float `expf`; defaults groups 1, temperature 1).
///
/// With `tree=` (darknet9000's WordTree, `ClassTree`): the runs are the tree's groups instead
/// (`groups` is not read, as darknet's forward_softmax_layer does not), one input per tree
/// class; `Classifier` then turns the scores into path probabilities.
public struct Softmax: Sendable, Hashable {
    public var groups: Int
    public var temperature: Float
    /// The class hierarchy, or nil.
    public var tree: ClassTree?

    static let keys: Set<String> = ["groups", "temperature", "tree", "spatial", "noloss"]
    /// Keys read and honoured; the other `keys` are training-only (ignored) or `rejectedKeys`.
    static let honouredKeys: Set<String> = ["groups", "temperature", "tree"]
    /// Keys that are a typed error (naming key and line) unless darknet's default, with a value that triggers it.
    static let rejectedKeys: [String: String] = ["spatial": "1"]

    static func parse(_ section: CfgSection, inputCount: Int, limits: ModelLimits = .init()) throws -> Softmax {
        let groups = try section.int("groups", default: 1)
        if groups < 1 || inputCount % groups != 0 {
            throw CfgError.invalidValue(section.location("groups"), value: String(groups),
                                        expected: "a divisor ≥ 1 of the \(inputCount) inputs")
        }
        let temperature = try section.float("temperature", default: 1)
        if !(temperature > 0) || !temperature.isFinite {
            throw CfgError.invalidValue(section.location("temperature"), value: String(temperature), expected: "a temperature > 0")
        }
        if try section.int("spatial", default: 0) != 0 {
            throw CfgError.unsupported(section.location("spatial"), what: "spatial softmax")
        }
        let tree = try ClassTree.load(section, classes: inputCount, limits: limits)
        return Softmax(groups: groups, temperature: temperature, tree: tree)
    }

    func forward(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, count: Int) {
        if let tree {
            for g in tree.groupSizes.indices {
                let offset = tree.groupOffsets[g]
                Self.softmax(input + offset, count: tree.groupSizes[g], temperature: temperature, into: output + offset)
            }
            return
        }
        let n = count / groups
        for g in 0..<groups {
            Self.softmax(input + g * n, count: n, temperature: temperature, into: output + g * n)
        }
    }

    /// blas.c `softmax` over `n` consecutive values.
    static func softmax(_ x: UnsafePointer<Float>, count n: Int, temperature: Float, into y: UnsafeMutablePointer<Float>) {
        var largest = -Float.greatestFiniteMagnitude
        for i in 0..<n where x[i] > largest { largest = x[i] }
        var sum: Float = 0
        for i in 0..<n {
            let e = Foundation.exp(x[i] / temperature - largest / temperature)
            sum += e
            y[i] = e
        }
        for i in 0..<n { y[i] /= sum }
    }
}

extension Softmax: LayerType {
    static let sectionNames = ["softmax", "soft"]

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        ParsedLayer(kind: .softmax(try parse(section, inputCount: context.input.count, limits: context.limits)), input: context.input,
                    output: context.input)
    }

    func workspaceCount(_ layer: Layer, _ context: PlanningContext) -> Int {
        LayerRun.eachImageCount(layer, batch: context.batch)
    }

    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        run.eachImage { forward(input: $0, output: $1, count: run.layer.output.count) }
    }

    /// `make_softmax_layer`'s line: its inputs.
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String {
        String(format: "softmax                                        %4d", layer.input.count)
    }

    func optionsSummary(_ layer: Layer) -> String { groups > 1 ? "groups \(groups)" : "" }
}
