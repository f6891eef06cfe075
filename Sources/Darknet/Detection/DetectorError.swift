/// Errors of a `Detector` call given arguments that do not fit together.
public enum DetectorError: Error, Equatable, CustomStringConvertible {
    /// `detect(prepared:imageSizes:)` got a different number of sizes than of inputs.
    case imageSizeCount(inputs: Int, sizes: Int)
    /// An image size below 1 × 1 (the boxes would be mapped onto nothing).
    case invalidImageSize(index: Int, width: Int, height: Int)

    public var description: String {
        switch self {
        case .imageSizeCount(let inputs, let sizes): return "\(inputs) prepared inputs but \(sizes) image sizes"
        case .invalidImageSize(let index, let width, let height):
            return "image \(index): size \(width)x\(height), expected at least 1x1"
        }
    }
}
