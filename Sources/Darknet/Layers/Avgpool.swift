import Foundation
import Kernels

/// `[avgpool]`: global average pooling, input `C×H×W` → `C×1×1`, each output the float sum
/// of its plane divided by `H·W` (darknet's `forward_avgpool_layer`). The section has no keys.
public struct Avgpool: Sendable, Hashable {
    static let keys: Set<String> = []

    public init() {}

    public func outputShape(input: TensorShape) -> TensorShape {
        TensorShape(channels: input.channels, height: 1, width: 1)
    }

    func forward(input: UnsafePointer<Float>, inputShape: TensorShape, output: UnsafeMutablePointer<Float>) {
        let plane = inputShape.height * inputShape.width
        for c in 0..<inputShape.channels {
            var sum: Float = 0
            for i in 0..<plane { sum += input[c * plane + i] }
            output[c] = sum / Float(plane)
        }
    }
}

extension Avgpool: LayerType {
    static let sectionNames = ["avgpool", "avg"]
    static let honouredKeys: Set<String> = []

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        let pool = Avgpool()
        return ParsedLayer(kind: .avgpool(pool), input: context.input, output: pool.outputShape(input: context.input))
    }

    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        forward(input: run.input, inputShape: run.planes(run.layer.input), output: run.output)
    }

    /// `make_avgpool_layer`'s line: `avg`, the input, and the output's channels (AlexeyAB's:
    /// `avg                          %4d x%4d x%4d ->   %4d`).
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String {
        let (i, o) = (layer.input, layer.output)
        let format = dialect == .alexeyAB ? "avg                          %4d x%4d x%4d ->   %4d"
                                          : "avg                     %4d x%4d x%4d   ->  %4d"
        return String(format: format, i.width, i.height, i.channels, o.channels)
    }
}
