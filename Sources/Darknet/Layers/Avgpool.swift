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
