/// `[upsample]`: nearest-neighbour, input `C×H×W` → `C × (H·stride) × (W·stride)`, each
/// value multiplied by `scale` (darknet's `upsample_cpu`; defaults stride 2, scale 1).
public struct Upsample: Sendable, Hashable {
    public var stride: Int
    public var scale: Float

    static let keys: Set<String> = ["stride", "scale"]

    static func parse(_ section: CfgSection) throws -> Upsample {
        let stride = try section.int("stride", default: 2)
        if stride < 0 {
            throw CfgError.unsupported(section.location("stride"), what: "negative upsample stride (downsampling)")
        }
        if stride == 0 {
            throw CfgError.invalidValue(section.location("stride"), value: "0", expected: "an integer ≥ 1")
        }
        return Upsample(stride: stride, scale: try section.float("scale", default: 1))
    }

    public func outputShape(input: TensorShape) -> TensorShape {
        TensorShape(channels: input.channels, height: input.height * stride, width: input.width * stride)
    }

    func forward(input: UnsafePointer<Float>, inputShape: TensorShape, output: UnsafeMutablePointer<Float>) {
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
}
