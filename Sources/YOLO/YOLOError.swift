/// Why a YOLO head or output buffer was rejected. Every case carries the values that were
/// found and says, in its description, what was expected.
public enum YOLOError: Error, CustomStringConvertible, Equatable, Sendable {
    /// `gridWidth` or `gridHeight` was zero or negative.
    case nonPositiveGrid(width: Int, height: Int)
    /// `networkWidth` or `networkHeight` was zero or negative.
    case nonPositiveNetworkSize(width: Int, height: Int)
    /// The head's `classes` was zero or negative.
    case nonPositiveClasses(Int)
    /// The head's `mask` lists no anchor.
    case emptyMask
    /// The head's `anchors` has an odd number of values, so it is not a list of (w, h) pairs.
    case oddAnchorCount(Int)
    /// `mask[position]` names anchor pair `index`, but only `anchorPairs` pairs exist.
    case maskIndexOutOfRange(position: Int, index: Int, anchorPairs: Int)
    /// The output buffer holds `actual` floats; the shape needs `expected`.
    case outputSizeMismatch(expected: Int, actual: Int, gridWidth: Int, gridHeight: Int, maskCount: Int, classes: Int)
    /// mask.count × (5 + classes) × gridHeight × gridWidth does not fit in an `Int`.
    case shapeTooLarge(gridWidth: Int, gridHeight: Int, maskCount: Int, classes: Int)
    /// A `[region]` head's class tree has `treeClasses` classes; the head has `classes`.
    case treeClassMismatch(treeClasses: Int, classes: Int)

    public var description: String {
        switch self {
        case let .nonPositiveGrid(width, height):
            return "YOLO grid is \(width)x\(height); expected width and height of at least 1"
        case let .nonPositiveNetworkSize(width, height):
            return "network input is \(width)x\(height); expected width and height of at least 1"
        case let .nonPositiveClasses(classes):
            return "[yolo] classes=\(classes); expected at least 1"
        case .emptyMask:
            return "[yolo] mask is empty; expected at least one anchor index"
        case let .oddAnchorCount(count):
            return "[yolo] anchors has \(count) values; expected an even count of (w, h) pairs"
        case let .maskIndexOutOfRange(position, index, pairs):
            return "[yolo] mask[\(position)] = \(index); expected an anchor index in 0..<\(pairs)"
        case let .outputSizeMismatch(expected, actual, gw, gh, maskCount, classes):
            return "YOLO output has \(actual) floats; expected \(expected) = \(maskCount) anchors x (4 + 1 + \(classes)) x \(gh) x \(gw)"
        case let .shapeTooLarge(gw, gh, maskCount, classes):
            return "YOLO output shape \(maskCount) anchors x (4 + 1 + \(classes)) x \(gh) x \(gw) overflows Int; expected a representable size"
        case let .treeClassMismatch(treeClasses, classes):
            return "[region] classes=\(classes) but its class tree has \(treeClasses) classes; expected one tree line per class"
        }
    }
}
