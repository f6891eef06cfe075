/// darknet's `box`: centre `(x, y)` and size `(width, height)`, normalised to the image (0...1).
public struct BoundingBox: Hashable, Sendable, Codable {
    public var x: Float
    public var y: Float
    public var width: Float
    public var height: Float

    public init(x: Float, y: Float, width: Float, height: Float) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// Builds a box from its edges: centre is the edges' midpoint, size their distance.
    public init(left: Float, top: Float, right: Float, bottom: Float) {
        self.init(x: (left + right) / 2, y: (top + bottom) / 2, width: right - left, height: bottom - top)
    }

    /// `x - width/2`, in Float as darknet's `overlap` computes it.
    public var left: Float { x - width / 2 }
    /// `x + width/2`.
    public var right: Float { x + width / 2 }
    /// `y - height/2`.
    public var top: Float { y - height / 2 }
    /// `y + height/2`.
    public var bottom: Float { y + height / 2 }

    /// Intersection over union, darknet's `box_iou` (box.c) in the same Float arithmetic
    /// (so identical boxes can give 0.99999964 rather than 1, as in darknet).
    /// Non-overlapping boxes give 0. Where darknet would return NaN (both boxes of zero area)
    /// this returns 0, and a box with a NaN field gives 0 too (darknet's min/max ternaries
    /// would silently use the other box's edge).
    public func iou(_ other: BoundingBox) -> Float {
        if hasNaN || other.hasNaN { return 0 }
        let value = darknetIoU(self, other)
        return value.isNaN ? 0 : value
    }

    private var hasNaN: Bool { x.isNaN || y.isNaN || width.isNaN || height.isNaN }
}

/// darknet's `overlap(x1, w1, x2, w2)`: length of the overlap of two 1-D intervals given by
/// centre and size (negative when they are apart). Ternaries kept as darknet writes them.
@inline(__always)
func darknetOverlap(_ x1: Float, _ w1: Float, _ x2: Float, _ w2: Float) -> Float {
    let l1 = x1 - w1 / 2
    let l2 = x2 - w2 / 2
    let left = l1 > l2 ? l1 : l2
    let r1 = x1 + w1 / 2
    let r2 = x2 + w2 / 2
    let right = r1 < r2 ? r1 : r2
    return right - left
}

/// darknet's `box_iou` exactly, NaN included (0/0 for two zero-area boxes). NMS uses this so
/// that its `iou > thresh` tests match darknet's bit for bit.
@inline(__always)
func darknetIoU(_ a: BoundingBox, _ b: BoundingBox) -> Float {
    let w = darknetOverlap(a.x, a.width, b.x, b.width)
    let h = darknetOverlap(a.y, a.height, b.y, b.height)
    let intersection: Float = (w < 0 || h < 0) ? 0 : w * h
    let union = a.width * a.height + b.width * b.height - intersection
    return intersection / union
}
