import Foundation
import Kernels

/// `[local_avgpool]` (AlexeyAB; alias `[local_avg]`): `[maxpool]`'s window and output shape
/// (`size`, `stride`, `stride_x`, `stride_y`, `padding` = size − 1 by default, windows from
/// `−padding/2`), each output the mean of the window's taps inside the image
/// (`forward_local_avgpool_layer`: a Float sum row by row, divided by the tap count).
public struct LocalAvgpool: Sendable, Hashable {
    public var pool: Maxpool

    static let keys: Set<String> = ["size", "stride", "padding", "stride_x", "stride_y"]
    static let honouredKeys: Set<String> = keys

    /// One image or a stack of planes (`C·batch` planes of `input`'s size).
    func forward(input: UnsafePointer<Float>, inputShape: TensorShape, output: UnsafeMutablePointer<Float>,
                 outputShape: TensorShape) {
        let offset = -pool.padding / 2
        let (height, width) = (inputShape.height, inputShape.width)
        for c in 0..<outputShape.channels {
            let plane = input + c * height * width
            let out = output + c * outputShape.height * outputShape.width
            for oy in 0..<outputShape.height {
                for ox in 0..<outputShape.width {
                    var sum: Float = 0
                    var taps = 0
                    for ky in 0..<pool.size {
                        let y = offset + oy * pool.strideY + ky
                        for kx in 0..<pool.size {
                            let x = offset + ox * pool.stride + kx
                            guard y >= 0, y < height, x >= 0, x < width else { continue }
                            sum += plane[y * width + x]
                            taps += 1
                        }
                    }
                    out[oy * outputShape.width + ox] = sum / Float(taps)
                }
            }
        }
    }
}

extension LocalAvgpool: LayerType {
    static let sectionNames = ["local_avgpool", "local_avg"]

    static func limitedKeys(_ limits: ModelLimits) -> [(key: String, limit: Int)] {
        ["size", "stride", "stride_x", "stride_y", "padding"].map { ($0, limits.maximumKernelSide) }
    }

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        let pool = try Maxpool.parse(section, limits: context.limits)
        guard let output = pool.outputShape(input: context.input), pool.padding < pool.size else {
            throw CfgError.shapeMismatch(section.location("size"), layer: context.index,
                                         detail: "a \(pool.size)×\(pool.size) window with padding \(pool.padding) does not fit \(context.input)")
        }
        return ParsedLayer(kind: .localAvgpool(LocalAvgpool(pool: pool)), input: context.input, output: output)
    }

    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        forward(input: run.input, inputShape: run.planes(run.layer.input), output: run.output,
                outputShape: run.planes(run.layer.output))
    }

    /// His `l.bflops`, a maxpool's (`make_maxpool_layer` builds both).
    func alexeyABBflops(_ layer: Layer) -> Float {
        AlexeyABTable.poolBflops(size: pool.size, input: layer.input, output: layer.output)
    }

    /// AlexeyAB's `make_maxpool_layer` line for it, named `avg` (`AlexeyABTable.pool`); in
    /// pjreddie's layout, which has no local average pool, `[maxpool]`'s row named `avg`.
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String {
        if dialect == .alexeyAB {
            return AlexeyABTable.pool("avg", size: pool.size, strideX: pool.stride, strideY: pool.strideY, input: layer.input,
                                      output: layer.output)
        }
        return String(format: "avg          %d x %d / %d  ", pool.size, pool.size, pool.stride) + layer.tableShapes
    }

    func optionsSummary(_ layer: Layer) -> String { "\(pool.size)x\(pool.size)/\(pool.stride)" }
}
