/// One YOLOv2 `[region]` head, as its cfg section describes it (pjreddie's parse_region,
/// region_layer.c), with `coords = 4` and no `background`; with a class tree (`tree=`,
/// YOLO9000) its class scores are a softmax per tree group and `RegionTreeDecoder` decodes it.
///
/// Output layout (region_layer.c `entry_index`): `anchors.count/2` blocks of
/// `(4 + 1 + classes)` planes of `gridHeight × gridWidth` values, the same order as a
/// `[yolo]` head: x, y, w, h, objectness, then the class scores.
public struct RegionHead: Sendable, Hashable {
    /// Anchor pairs `(w, h)` in GRID CELLS (not network pixels, unlike `[yolo]`), flattened
    /// as cfg `anchors` lists them; every pair is one anchor slot (`num` = pairs).
    public var anchors: [Float]
    /// Number of class scores per anchor.
    public var classes: Int
    /// cfg `softmax=1` (every YOLOv2 cfg): class scores are a softmax across classes;
    /// `softmax=0`: a logistic on each class score.
    public var softmax: Bool
    /// cfg `tree=`: the class hierarchy (`classes` lines), or nil.
    public var tree: ClassTree?

    public init(anchors: [Float], classes: Int, softmax: Bool = true, tree: ClassTree? = nil) {
        self.anchors = anchors
        self.classes = classes
        self.softmax = softmax
        self.tree = tree
    }

    /// Anchor slots per cell (`l.n`).
    public var anchorCount: Int { anchors.count / 2 }

    /// Checks `classes >= 1`, at least one anchor pair and an even anchor count.
    public func validate() throws(YOLOError) {
        if classes < 1 { throw .nonPositiveClasses(classes) }
        if anchors.count % 2 != 0 { throw .oddAnchorCount(anchors.count) }
        if anchors.isEmpty { throw .emptyMask }
        if let tree, tree.count != classes { throw .treeClassMismatch(treeClasses: tree.count, classes: classes) }
    }
}

/// The kind of detection head a tensor comes from.
public enum DetectionHead: Sendable, Hashable {
    /// YOLOv3 / v4 `[yolo]`: network-pixel anchors selected by `mask`, logistic everywhere
    /// but w and h, optional `scale_x_y` and `new_coords`.
    case yolo(YOLOHead)
    /// YOLOv2 `[region]`: grid-unit anchors, softmax classes.
    case region(RegionHead)

    /// Anchor slots per cell.
    public var anchorCount: Int {
        switch self {
        case .yolo(let head): return head.mask.count
        case .region(let head): return head.anchorCount
        }
    }

    /// Class scores per anchor slot.
    public var classes: Int {
        switch self {
        case .yolo(let head): return head.classes
        case .region(let head): return head.classes
        }
    }

    /// The channel count the head's tensor must have: anchors × (4 + 1 + classes).
    public func validatedChannels() throws(DecodeError) -> Int {
        do {
            switch self {
            case .yolo(let head): try head.validate()
            case .region(let head): try head.validate()
            }
        } catch {
            throw .head(error)
        }
        let entries = classes.addingReportingOverflow(5)
        let total = entries.partialValue.multipliedReportingOverflow(by: anchorCount)
        if entries.overflow || total.overflow {
            throw .head(.shapeTooLarge(gridWidth: 1, gridHeight: 1, maskCount: anchorCount, classes: classes))
        }
        return total.partialValue
    }
}
