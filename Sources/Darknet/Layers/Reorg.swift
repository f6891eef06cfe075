import Foundation
import Kernels

/// `[reorg]` (YOLOv2's passthrough layer), pjreddie's reorg_layer.c at inference:
/// input `C×H×W` → `(C·s²) × (H/s) × (W/s)` with `s = stride`, or with `reverse=1`
/// `(C/s²) × (H·s) × (W·s)`.
///
/// The data movement is darknet's `reorg_cpu(input, W, H, C, batch, s, forward, output)`
/// called with the layer's INPUT dimensions, which is not the space-to-depth its output shape
/// suggests: with `outC = C / s²`, every input index `k, j, i` (channel, row, column) pairs
/// `inIndex = i + W·(j + H·k)` with `outIndex = w2 + W·s·(h2 + H·s·c2)`, where
/// `c2 = k mod outC`, `offset = k / outC`, `w2 = i·s + offset mod s`, `h2 = j·s + offset / s`.
/// `forward_reorg_layer` passes `forward = 0` (yolov2): `output[inIndex] = input[outIndex]`;
/// `reverse=1` passes `forward = 1`: `output[outIndex] = input[inIndex]`. Both read the
/// `C·H·W` floats as a `(C/s²) × (H·s) × (W·s)` grid on one side, so `C` must be a multiple
/// of `s²` (and `H`, `W` of `s` without `reverse`), or darknet reads out of bounds.
public struct Reorg: Sendable, Hashable {
    public var stride: Int
    public var reverse: Bool

    static let keys: Set<String> = ["stride", "reverse", "flatten", "extra"]
    /// Keys read and honoured; the other `keys` are `rejectedKeys`.
    static let honouredKeys: Set<String> = ["stride", "reverse"]
    /// Keys that are a typed error (naming key and line) unless darknet's default, with a value that triggers it.
    static let rejectedKeys: [String: String] = ["flatten": "1", "extra": "1"]

    static func parse(_ section: CfgSection) throws -> Reorg {
        let stride = try section.int("stride", default: 1)
        if stride < 1 {
            throw CfgError.invalidValue(section.location("stride"), value: String(stride), expected: "an integer ≥ 1")
        }
        let reverse = try section.int("reverse", default: 0)
        guard reverse == 0 || reverse == 1 else {
            throw CfgError.invalidValue(section.location("reverse"), value: String(reverse), expected: "0 or 1")
        }
        for key in ["flatten", "extra"] where try section.int(key, default: 0) != 0 {
            throw CfgError.unsupported(section.location(key), what: "\(key) in [reorg]")
        }
        return Reorg(stride: stride, reverse: reverse == 1)
    }

    /// Pure shape inference; nil unless `C` is a multiple of `stride²` (and, without
    /// `reverse`, `H` and `W` multiples of `stride`).
    public func outputShape(input: TensorShape) -> TensorShape? {
        let (area, overflow) = stride.multipliedReportingOverflow(by: stride)
        guard !overflow, input.channels % area == 0 else { return nil }
        if reverse {
            let (height, h) = input.height.multipliedReportingOverflow(by: stride)
            let (width, w) = input.width.multipliedReportingOverflow(by: stride)
            guard !h, !w else { return nil }
            return TensorShape(channels: input.channels / area, height: height, width: width)
        }
        guard input.height % stride == 0, input.width % stride == 0 else { return nil }
        let (channels, c) = input.channels.multipliedReportingOverflow(by: area)
        guard !c else { return nil }
        return TensorShape(channels: channels, height: input.height / stride, width: input.width / stride)
    }

    /// darknet's `reorg_cpu` on one image: `input` and `output` are `inputShape.count` floats.
    func forward(input: UnsafePointer<Float>, inputShape: TensorShape, output: UnsafeMutablePointer<Float>) {
        let (c, h, w, s) = (inputShape.channels, inputShape.height, inputShape.width, stride)
        let outC = c / (s * s)
        for k in 0..<c {
            let c2 = k % outC, offset = k / outC
            for j in 0..<h {
                let h2 = j * s + offset / s
                for i in 0..<w {
                    let inIndex = i + w * (j + h * k)
                    let outIndex = (i * s + offset % s) + w * s * (h2 + h * s * c2)
                    if reverse {
                        output[outIndex] = input[inIndex]
                    } else {
                        output[inIndex] = input[outIndex]
                    }
                }
            }
        }
    }
}

extension Reorg: LayerType {
    static let sectionNames = ["reorg"]

    static func limitedKeys(_ limits: ModelLimits) -> [(key: String, limit: Int)] { [("stride", limits.maximumKernelSide)] }

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        let reorg = try parse(section)
        guard let output = reorg.outputShape(input: context.input) else {
            throw CfgError.shapeMismatch(section.location("stride"), layer: context.index,
                                         detail: "reorg with stride=\(reorg.stride)\(reorg.reverse ? " reverse=1" : "") needs channels divisible by stride² and \(reorg.reverse ? "" : "width and height divisible by stride, ")got \(context.input)")
        }
        return ParsedLayer(kind: .reorg(reorg), input: context.input, output: output)
    }

    func workspaceCount(_ layer: Layer, _ context: PlanningContext) -> Int {
        LayerRun.eachImageCount(layer, batch: context.batch)
    }

    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        run.eachImage { forward(input: $0, inputShape: run.layer.input, output: $1) }
    }

    /// `make_reorg_layer`'s line: `reorg              /%2d  ` and the shapes. AlexeyAB's parser
    /// reads `[reorg]` as his `reorg_old` layer: `make_reorg_old_layer`'s
    /// `reorg_old              /%2d  ` and the shapes.
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String {
        String(format: dialect == .alexeyAB ? "reorg_old              /%2d  " : "reorg              /%2d  ", stride) + layer.tableShapes
    }

    /// `/2`, then ` reverse`.
    func optionsSummary(_ layer: Layer) -> String { "/\(stride)" + (reverse ? " reverse" : "") }
}
