/// Everything that can be wrong with a `.weights` file, with the layer and byte offset.
public enum WeightsError: Error, Equatable, CustomStringConvertible {
    case unreadable(file: String, reason: String)
    case empty(file: String)
    case htmlPage(file: String)
    case gitLFSPointer(file: String)
    case textFile(file: String)
    case truncatedHeader(file: String, bytes: Int, needed: Int)
    /// The file ends inside a layer's parameters.
    case tooShort(file: String, layer: Int, part: String, offset: Int, expectedSize: Int, actualSize: Int)
    /// The file has bytes after the last layer's parameters.
    case tooLong(file: String, expectedSize: Int, actualSize: Int)
    case nonFinite(file: String, layer: Int, part: String, offset: Int)
    /// A value that must not be negative is (a batch-norm rolling variance: darknet takes its
    /// square root, so every output after the layer would be NaN).
    case negative(file: String, layer: Int, part: String, offset: Int, value: Float)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason): return "\(file): cannot read weights: \(reason)"
        case .empty(let file): return "\(file): the weights file is empty"
        case .htmlPage(let file): return "\(file): this is an HTML page, not Darknet weights (a failed download?)"
        case .gitLFSPointer(let file):
            return "\(file): this is a Git LFS pointer, not the weights; fetch the real file (git lfs pull)"
        case .textFile(let file): return "\(file): this is a text file, not Darknet weights"
        case .truncatedHeader(let file, let bytes, let needed):
            return "\(file): \(bytes) bytes is too short for the weights header (\(needed) bytes)"
        case .tooShort(let file, let layer, let part, let offset, let expected, let actual):
            return "\(file): file ends at byte \(actual) inside layer \(layer)'s \(part) (which start at byte \(offset)); the cfg needs \(expected) bytes, the file has \(actual)"
        case .tooLong(let file, let expected, let actual):
            return "\(file): the cfg needs \(expected) bytes of weights but the file has \(actual) (\(actual - expected) extra bytes: wrong cfg for these weights?)"
        case .nonFinite(let file, let layer, let part, let offset):
            return "\(file): layer \(layer)'s \(part) holds a NaN or infinite value at byte \(offset)"
        case .negative(let file, let layer, let part, let offset, let value):
            return "\(file): layer \(layer)'s \(part) holds \(value) at byte \(offset); it must not be negative (wrong cfg for these weights, or a damaged file?)"
        }
    }
}
