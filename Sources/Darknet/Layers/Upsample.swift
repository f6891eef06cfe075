import Foundation
import Kernels

/// `[upsample]`: nearest-neighbour, input `C×H×W` → `C × (H·stride) × (W·stride)`, each
/// value multiplied by `scale` (darknet's `upsample_cpu`; defaults stride 2, scale 1).
///
/// A negative stride (`reverse` in darknet) downsamples: output `C × H/s × W/s`, each value
/// `Σ scale · input` over its `s×s` block, summed row by row (`forward_upsample_layer` zero-fills
/// the output, then `upsample_cpu(..., forward = 0, ...)` accumulates into it). H and W must be
/// multiples of `s` (darknet indexes the input with row width `(W/s)·s`, wrong otherwise).
public struct Upsample: Sendable, Hashable {
    /// `|stride|` from the cfg.
    public var stride: Int
    public var scale: Float
    /// True for a negative cfg stride (downsampling by summing blocks).
    public var reverse: Bool = false

    static let keys: Set<String> = ["stride", "scale"]
    /// Keys read and honoured; the other `keys` are training-only (ignored) or `rejectedKeys`.
    static let honouredKeys: Set<String> = ["stride", "scale"]
    /// Keys that are a typed error (naming key and line) unless darknet's default, with a value that triggers it.
    static let rejectedKeys: [String: String] = [:]

    static func parse(_ section: CfgSection) throws -> Upsample {
        let stride = try section.int("stride", default: 2)
        if stride == 0 {
            throw CfgError.invalidValue(section.location("stride"), value: "0", expected: "a non-zero integer")
        }
        return Upsample(stride: abs(stride), scale: try section.float("scale", default: 1), reverse: stride < 0)
    }

    /// Pure shape inference; nil when downsampling a size that is not a multiple of the stride.
    public func outputShape(input: TensorShape) -> TensorShape? {
        if reverse {
            guard input.height % stride == 0, input.width % stride == 0 else { return nil }
            return TensorShape(channels: input.channels, height: input.height / stride, width: input.width / stride)
        }
        return TensorShape(channels: input.channels, height: input.height * stride, width: input.width * stride)
    }

    func forward(input: UnsafePointer<Float>, inputShape: TensorShape, output: UnsafeMutablePointer<Float>) {
        if reverse { return downsample(input: input, inputShape: inputShape, output: output) }
        let (height, width) = (inputShape.height, inputShape.width)
        let outWidth = width * stride
        for c in 0..<inputShape.channels {
            let plane = input + c * height * width
            let out = output + c * height * stride * outWidth
            for y in 0..<height {
                let row = out + y * stride * outWidth
                for x in 0..<width {
                    let value = scale * plane[y * width + x]
                    for s in 0..<stride { row[x * stride + s] = value }
                }
                for s in 1..<stride {
                    (row + s * outWidth).update(from: row, count: outWidth)
                }
            }
        }
    }

    /// darknet's reverse `upsample_cpu`: `out[c][y/s][x/s] += scale · in[c][y][x]` for y, x in row-major order.
    private func downsample(input: UnsafePointer<Float>, inputShape: TensorShape, output: UnsafeMutablePointer<Float>) {
        let (height, width) = (inputShape.height, inputShape.width)
        let (outHeight, outWidth) = (height / stride, width / stride)
        output.update(repeating: 0, count: inputShape.channels * outHeight * outWidth)
        for c in 0..<inputShape.channels {
            let plane = input + c * height * width
            let out = output + c * outHeight * outWidth
            for y in 0..<height {
                for x in 0..<width {
                    out[(y / stride) * outWidth + x / stride] += scale * plane[y * width + x]
                }
            }
        }
    }
}

extension Upsample: LayerType {
    static let sectionNames = ["upsample"]

    static func limitedKeys(_ limits: ModelLimits) -> [(key: String, limit: Int)] { [("stride", limits.maximumKernelSide)] }

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        let upsample = try parse(section)
        guard let output = upsample.outputShape(input: context.input) else {
            throw CfgError.shapeMismatch(section.location("stride"), layer: context.index,
                                         detail: "downsampling \(context.input) by \(upsample.stride) needs a height and width divisible by it")
        }
        return ParsedLayer(kind: .upsample(upsample), input: context.input, output: output)
    }

    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        forward(input: run.input, inputShape: run.planes(run.layer.input), output: run.output)
    }

    /// `make_upsample_layer`'s line: `upsample           %2dx  ` and the shapes (`downsample`
    /// for a negative stride); AlexeyAB's is 5 columns wider, with his shapes.
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String {
        guard dialect == .alexeyAB else {
            return String(format: reverse ? "downsample         %2dx  " : "upsample           %2dx  ", stride) + layer.tableShapes
        }
        return String(format: reverse ? "downsample              %2dx  " : "upsample                %2dx  ", stride)
            + AlexeyABTable.shapes(layer.input, layer.output)
    }

    /// `2x`, or `/2` downsampling.
    func optionsSummary(_ layer: Layer) -> String { reverse ? "/\(stride)" : "\(stride)x" }
}
