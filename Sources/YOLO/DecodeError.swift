/// Why a tensor, a Core ML output pair or a list of labels was rejected by the decoders.
/// Every case carries the values found; `description` says what was expected.
public enum DecodeError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The head itself is malformed (see `YOLOError`).
    case head(YOLOError)
    /// `shape` and `strides` differ in length or do not have 3 or 4 axes.
    case badShape(shape: [Int], strides: [Int])
    /// A 4-axis shape whose batch axis is not 1.
    case batchNotOne(Int)
    /// A zero or negative channel, height or width.
    case nonPositiveDimension(channels: Int, height: Int, width: Int)
    /// A negative stride or offset.
    case negativeStride(channelStride: Int, rowStride: Int, columnStride: Int, offset: Int)
    /// The last element the descriptor addresses is past the end of the buffer.
    case outOfBounds(lastIndex: Int, bufferCount: Int)
    /// The tensor has `actual` channels; the head needs `expected` = anchors × (5 + classes).
    case channelMismatch(expected: Int, actual: Int)
    /// Core ML `confidence` (N×C) and `coordinates` (N×4) disagree or have the wrong size.
    case coreMLShapeMismatch(confidenceCount: Int, coordinatesCount: Int, boxes: Int, classes: Int)
    /// There are `labels` class labels for `classes` score columns.
    case labelCountMismatch(labels: Int, classes: Int)
    /// `k` (top-K) or `maxDetections` is negative.
    case negativeCount(Int)
    /// A `[region]` head with a class tree, which `RegionTreeDecoder` decodes.
    case treeHead

    public var description: String {
        switch self {
        case let .head(error):
            return error.description
        case .treeHead:
            return "a [region] head with a class tree (tree=); expected one without, or RegionTreeDecoder"
        case let .badShape(shape, strides):
            return "tensor shape \(shape) with strides \(strides); expected 3 or 4 axes and one stride per axis"
        case let .batchNotOne(batch):
            return "tensor batch axis is \(batch); expected 1"
        case let .nonPositiveDimension(c, h, w):
            return "tensor is \(c) channels x \(h) x \(w); expected every dimension of at least 1"
        case let .negativeStride(cs, rs, ws, offset):
            return "tensor strides (channel \(cs), row \(rs), column \(ws)), offset \(offset); expected none negative"
        case let .outOfBounds(last, count):
            return "tensor addresses element \(last) of a \(count)-element buffer; expected every index below \(count)"
        case let .channelMismatch(expected, actual):
            return "tensor has \(actual) channels; expected \(expected) = anchors x (4 + 1 + classes)"
        case let .coreMLShapeMismatch(confidence, coordinates, boxes, classes):
            return "Core ML outputs have \(confidence) confidence and \(coordinates) coordinate values for \(boxes) boxes and \(classes) classes; expected \(boxes) x \(classes) and \(boxes) x 4"
        case let .labelCountMismatch(labels, classes):
            return "\(labels) class labels for \(classes) classes; expected one label per class"
        case let .negativeCount(count):
            return "count is \(count); expected 0 or more"
        }
    }
}
