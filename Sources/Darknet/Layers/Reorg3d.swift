import Foundation
import Kernels

/// `[reorg3d]` (AlexeyAB): a true space-to-depth, input `C×H×W` → `(C·s²) × (H/s) × (W/s)` with
/// `s = stride`, or with `reverse=1` depth-to-space `(C/s²) × (H·s) × (W·s)`.
///
/// AlexeyAB's `forward_reorg_layer` calls `reorg_cpu(input, out_w, out_h, out_c, batch, s,
/// reverse, output)` with the OUTPUT dimensions (`[reorg]`, pjreddie's, passes the input's):
/// with `C` the input channels, output channel `k` at `(j, i)` is input channel `k mod C` at
/// `(j·s + (k/C)/s, i·s + (k/C) mod s)`. `reverse=1` moves the values back.
public struct Reorg3d: Sendable, Hashable {
    public var stride: Int
    public var reverse: Bool

    static let keys: Set<String> = ["stride", "reverse"]
    static let honouredKeys: Set<String> = keys

    static func parse(_ section: CfgSection) throws -> Reorg3d {
        let reorg = try Reorg.parse(section)
        return Reorg3d(stride: reorg.stride, reverse: reorg.reverse)
    }

    /// Pure shape inference; nil unless `H` and `W` are multiples of `stride` (with `reverse`:
    /// unless `C` is a multiple of `stride²`).
    public func outputShape(input: TensorShape) -> TensorShape? {
        let (area, overflow) = stride.multipliedReportingOverflow(by: stride)
        guard !overflow else { return nil }
        if reverse {
            let (height, h) = input.height.multipliedReportingOverflow(by: stride)
            let (width, w) = input.width.multipliedReportingOverflow(by: stride)
            guard !h, !w, input.channels % area == 0 else { return nil }
            return TensorShape(channels: input.channels / area, height: height, width: width)
        }
        let (channels, c) = input.channels.multipliedReportingOverflow(by: area)
        guard !c, input.height % stride == 0, input.width % stride == 0 else { return nil }
        return TensorShape(channels: channels, height: input.height / stride, width: input.width / stride)
    }

    /// One image; `spaceShape` is the side with the large grid (the input, or the output with `reverse`).
    func forward(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, spaceShape: TensorShape) {
        let (c, h, w, s) = (spaceShape.channels, spaceShape.height, spaceShape.width, stride)
        let (outH, outW) = (h / s, w / s)
        for k in 0..<(c * s * s) {
            let (source, offset) = (k % c, k / c)
            for j in 0..<outH {
                for i in 0..<outW {
                    let depth = (k * outH + j) * outW + i
                    let space = (source * h + j * s + offset / s) * w + i * s + offset % s
                    if reverse { output[space] = input[depth] } else { output[depth] = input[space] }
                }
            }
        }
    }
}

extension Reorg3d: LayerType {
    static let sectionNames = ["reorg3d"]

    static func limitedKeys(_ limits: ModelLimits) -> [(key: String, limit: Int)] { [("stride", limits.maximumKernelSide)] }

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        let reorg = try parse(section)
        guard let output = reorg.outputShape(input: context.input) else {
            throw CfgError.shapeMismatch(section.location("stride"), layer: context.index,
                                         detail: "reorg3d with stride=\(reorg.stride) needs \(reorg.reverse ? "channels divisible by stride²" : "width and height divisible by stride"), got \(context.input)")
        }
        return ParsedLayer(kind: .reorg3d(reorg), input: context.input, output: output)
    }

    func workspaceCount(_ layer: Layer, _ context: PlanningContext) -> Int {
        LayerRun.eachImageCount(layer, batch: context.batch)
    }

    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        let space = reverse ? run.layer.output : run.layer.input
        run.eachImage { forward(input: $0, output: $1, spaceShape: space) }
    }

    /// `[reorg]`'s line named `reorg3d`: `reorg3d            /%2d  ` and the shapes. AlexeyAB's
    /// parser builds `[reorg3d]` with his `make_reorg_layer`: `reorg                    /%2d `
    /// and his shapes.
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String {
        guard dialect == .alexeyAB else { return String(format: "reorg3d            /%2d  ", stride) + layer.tableShapes }
        return String(format: "reorg                    /%2d ", stride) + AlexeyABTable.shapes(layer.input, layer.output)
    }

    /// `/2`, then ` reverse`.
    func optionsSummary(_ layer: Layer) -> String { "/\(stride)" + (reverse ? " reverse" : "") }
}
