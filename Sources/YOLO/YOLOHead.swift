/// One `[yolo]` head, as its cfg section describes it.
///
/// darknet's parse_yolo: `anchors` fills `l.biases` (all pairs, network pixels), `mask`
/// selects which pairs this head predicts (`l.mask`, `l.n = mask.count`), `classes` is
/// `l.classes`.
public struct YOLOHead: Sendable, Hashable {
    /// All anchor pairs `(w, h)` in network pixels, flattened as cfg `anchors` lists them.
    public var anchors: [Float]
    /// Indices of the anchor pairs this head predicts, in output order.
    public var mask: [Int]
    /// Number of class scores per anchor.
    public var classes: Int
    /// AlexeyAB's `scale_x_y` (1 = plain YOLOv3): forward_yolo_layer maps x and y to
    /// `x·scale − (scale − 1)/2` after the logistic, so centres can reach the cell edges.
    public var scaleXY: Float = 1
    /// AlexeyAB's `new_coords=1` (yolov4-csp, -p5, -p6): the preceding convolution already
    /// applies the logistic to every entry, the layer applies none, and
    /// `w = (2·tw)²·anchorW / netW` (darknet writes `tw·tw·4·anchor/w`) instead of `exp(tw)·anchorW / netW`.
    public var newCoords: Bool = false

    public init(anchors: [Float], mask: [Int], classes: Int) {
        self.anchors = anchors
        self.mask = mask
        self.classes = classes
    }

    public init(anchors: [Float], mask: [Int], classes: Int, scaleXY: Float, newCoords: Bool) {
        self.anchors = anchors
        self.mask = mask
        self.classes = classes
        self.scaleXY = scaleXY
        self.newCoords = newCoords
    }

    /// Floats per anchor and cell: x, y, w, h, objectness, then `classes` scores.
    public var entriesPerAnchor: Int { 4 + 1 + classes }

    /// Checks that the head is well formed: positive `classes`, a non-empty `mask`,
    /// an even `anchors` count and every mask index naming an existing anchor pair.
    public func validate() throws(YOLOError) {
        if classes < 1 { throw .nonPositiveClasses(classes) }
        if mask.isEmpty { throw .emptyMask }
        if anchors.count % 2 != 0 { throw .oddAnchorCount(anchors.count) }
        let pairs = anchors.count / 2
        for (position, index) in mask.enumerated() where index < 0 || index >= pairs {
            throw .maskIndexOutOfRange(position: position, index: index, anchorPairs: pairs)
        }
    }

    /// The number of floats of this head's output on a `gridWidth × gridHeight` grid:
    /// `mask.count × (4 + 1 + classes) × gridHeight × gridWidth` (darknet's `l.outputs`).
    /// Validates the head and the grid first.
    public func outputCount(gridWidth: Int, gridHeight: Int) throws(YOLOError) -> Int {
        try validate()
        if gridWidth < 1 || gridHeight < 1 { throw .nonPositiveGrid(width: gridWidth, height: gridHeight) }
        let tooLarge = YOLOError.shapeTooLarge(
            gridWidth: gridWidth, gridHeight: gridHeight, maskCount: mask.count, classes: classes)
        let cells = gridWidth.multipliedReportingOverflow(by: gridHeight)
        if cells.overflow { throw tooLarge }
        let entries = classes.addingReportingOverflow(5)
        if entries.overflow { throw tooLarge }
        let perAnchor = cells.partialValue.multipliedReportingOverflow(by: entries.partialValue)
        if perAnchor.overflow { throw tooLarge }
        let total = perAnchor.partialValue.multipliedReportingOverflow(by: mask.count)
        if total.overflow { throw tooLarge }
        return total.partialValue
    }
}
