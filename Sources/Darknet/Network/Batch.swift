/// Moves images between CHW one after the other (`batch × C × H × W`, what callers hold) and
/// `Network`'s channel-major batches (`C × batch × H × W`: image `b`'s channel `c` plane at
/// `(c·batch + b)·H·W`). Every copy is a whole `H×W` plane.
enum Batch {
    /// `batch` CHW images one after the other → channel-major.
    static func interleave(_ images: UnsafePointer<Float>, into batched: UnsafeMutablePointer<Float>,
                           shape: TensorShape, batch: Int) {
        for b in 0..<batch { scatter(image: b, from: images + b * shape.count, into: batched, shape: shape, batch: batch) }
    }

    /// Channel-major → `batch` CHW images one after the other.
    static func deinterleave(_ batched: UnsafePointer<Float>, into images: UnsafeMutablePointer<Float>,
                             shape: TensorShape, batch: Int) {
        for b in 0..<batch { gather(image: b, from: batched, into: images + b * shape.count, shape: shape, batch: batch) }
    }

    /// Image `image` of a channel-major batch → one CHW image.
    static func gather(image: Int, from batched: UnsafePointer<Float>, into chw: UnsafeMutablePointer<Float>,
                       shape: TensorShape, batch: Int) {
        let plane = shape.height * shape.width
        for c in 0..<shape.channels {
            (chw + c * plane).update(from: batched + (c * batch + image) * plane, count: plane)
        }
    }

    /// One CHW image → image `image` of a channel-major batch.
    static func scatter(image: Int, from chw: UnsafePointer<Float>, into batched: UnsafeMutablePointer<Float>,
                        shape: TensorShape, batch: Int) {
        let plane = shape.height * shape.width
        for c in 0..<shape.channels {
            (batched + (c * batch + image) * plane).update(from: chw + c * plane, count: plane)
        }
    }
}
