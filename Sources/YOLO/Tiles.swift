/// A rectangle of whole pixels of an image: columns `x ..< x + width`, rows `y ..< y + height`.
public struct TileRect: Sendable, Hashable, Codable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// Tiling for small objects in large photos: the image is cut into `columns` × `rows` tiles
/// that overlap, each tile is detected on alone (at the network's size, so small objects are
/// not shrunk away), and the detections are mapped back and merged (``TileMerge``).
///
/// The grid: the image is split into equal cores (column `i` of `C` spans pixels
/// `i·W/C ..< (i+1)·W/C`, integer division, likewise for rows), and each core grows by
/// `overlap` (10%) of the core's size past each of its inner edges (never past the image's
/// border). Two neighbours therefore share a band of 20% of a core, and an object up to 10%
/// of a core wide that straddles their edge is seen whole by one of them.
public struct TileGrid: Sendable, Hashable {
    public var columns: Int
    public var rows: Int
    /// How far a tile reaches past each inner edge of its core, as a fraction of the core.
    public var overlap: Double

    public static let defaultOverlap = 0.1
    /// The most tiles along either side (`auto` never asks for more; a bigger grid is clamped).
    public static let maximumTilesPerSide = 64

    public init(columns: Int, rows: Int, overlap: Double = TileGrid.defaultOverlap) {
        self.columns = columns
        self.rows = rows
        self.overlap = overlap
    }

    /// Enough tiles that each is about the network's input size: `round(W / networkWidth)`
    /// columns and `round(H / networkHeight)` rows, at least 1 (an image no larger than the
    /// network is one tile: untiled), at most ``maximumTilesPerSide``.
    public static func auto(imageWidth: Int, imageHeight: Int, networkWidth: Int, networkHeight: Int) -> TileGrid {
        func count(_ size: Int, _ network: Int) -> Int {
            guard size > 0, network > 0 else { return 1 }
            return min(maximumTilesPerSide, max(1, Int((Double(size) / Double(network)).rounded())))
        }
        return TileGrid(columns: count(imageWidth, networkWidth), rows: count(imageHeight, networkHeight))
    }

    /// The tiles of a `width` × `height` image, row by row, left to right. The grid is
    /// clamped to 1...``maximumTilesPerSide`` and to one pixel per core; an empty image has none.
    public func tiles(imageWidth width: Int, imageHeight height: Int) -> [TileRect] {
        guard width > 0, height > 0 else { return [] }
        let xs = Self.spans(width, columns, overlap), ys = Self.spans(height, rows, overlap)
        return ys.flatMap { y in xs.map { x in TileRect(x: x.lowerBound, y: y.lowerBound, width: x.count, height: y.count) } }
    }

    /// The tiles' pixel ranges along one side of `size` pixels.
    static func spans(_ size: Int, _ count: Int, _ overlap: Double) -> [Range<Int>] {
        let n = min(max(1, min(count, maximumTilesPerSide)), size)
        let margin = max(0, Int((Double(size) / Double(n) * overlap).rounded()))
        return (0..<n).map { i in
            let start = i * size / n, end = (i + 1) * size / n
            return max(0, start - margin) ..< min(size, end + margin)
        }
    }
}

extension Detection {
    /// This detection, found in `tile` (its box normalised to the tile), with its box
    /// normalised to the whole `imageWidth` × `imageHeight` image.
    public func mapped(from tile: TileRect, imageWidth: Int, imageHeight: Int) -> Detection {
        let sx = Double(tile.width) / Double(imageWidth), sy = Double(tile.height) / Double(imageHeight)
        let box = BoundingBox(x: Float(Double(tile.x) / Double(imageWidth) + Double(self.box.x) * sx),
                              y: Float(Double(tile.y) / Double(imageHeight) + Double(self.box.y) * sy),
                              width: Float(Double(self.box.width) * sx), height: Float(Double(self.box.height) * sy))
        return Detection(classId: classId, confidence: confidence, box: box)
    }
}
