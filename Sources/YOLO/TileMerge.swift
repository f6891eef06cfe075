/// Merges the detections of overlapping tiles (``TileGrid``) into one list for the image.
///
/// 1. Each tile's detections are mapped to the image (``Detection/mapped(from:imageWidth:imageHeight:)``).
/// 2. **Boxes cut by a tile edge are joined.** A box is *cut* on a side of its tile when that
///    side is inside the image (not the image's border) and the box reaches it: to within
///    `edgeTolerance` (2%) of the tile's size, or past it. Two detections of one class from
///    different tiles are joined when one of them is cut on the side facing the other's tile,
///    their boxes overlap or touch across that edge (a gap of at most the tolerance), and they
///    line up along it: their extents parallel to the edge overlap by at least `alignment`
///    (half) of the union of those extents. Joins are transitive (an object over four tiles
///    becomes one box); a joined group becomes the smallest box holding all its boxes, with
///    the highest confidence among them.
/// 3. **NMS across tiles**: the objects in the bands two tiles share are found twice, whole;
///    the boxes are taken by descending confidence (ties in tile order) and a box is dropped
///    when one already kept overlaps it with IoU above the NMS threshold, within its class
///    (`agnostic`: whatever the class).
///
/// Why: a box cut by a tile edge only covers the part of its object inside that tile, so its
/// IoU with the other part (or with the whole object seen by the neighbour) is often under any
/// NMS threshold; cut boxes are only ever pieces, so they are joined first and NMS then removes
/// the duplicates of whole objects. Requiring a cut keeps two neighbouring objects of one class
/// apart when each was seen whole.
///
/// The survivors keep their order: tile by tile (row by row), then each tile's own order, a
/// joined box at the place of its first piece.
public enum TileMerge {
    public static let edgeTolerance: Float = 0.02
    public static let alignment: Float = 0.5

    /// The merged detections of `perTile[i]` found in `tiles[i]` (each box normalised to its
    /// tile), normalised to the `imageWidth` × `imageHeight` image. `nmsThreshold` 0 or less
    /// skips step 3; `overlap` is what step 3 compares with it (IoU, or the DIoU of the model's
    /// `nms_kind`, so tiles are merged as each tile was suppressed).
    public static func merge(_ perTile: [[Detection]], tiles: [TileRect], imageWidth: Int, imageHeight: Int,
                             nmsThreshold: Float, agnostic: Bool = false,
                             overlap: (BoundingBox, BoundingBox) -> Float = { $0.iou($1) }) -> [Detection] {
        var pieces: [Piece] = []
        for (index, (detections, tile)) in zip(perTile, tiles).enumerated() {
            for detection in detections {
                let mapped = detection.mapped(from: tile, imageWidth: imageWidth, imageHeight: imageHeight)
                pieces.append(Piece(detection: mapped, tileIndex: index, tile: tile,
                                    edges: Edges(mapped.box, imageWidth: imageWidth, imageHeight: imageHeight)))
            }
        }
        let joined = join(pieces, imageWidth: imageWidth, imageHeight: imageHeight)
        return nmsThreshold > 0 ? suppress(joined, threshold: nmsThreshold, agnostic: agnostic, overlap: overlap) : joined
    }

    /// A detection mapped to the image, with the tile it came from and its box in pixels.
    struct Piece {
        var detection: Detection
        var tileIndex: Int
        var tile: TileRect
        var edges: Edges
    }

    /// A box's edges in image pixels (fractional).
    struct Edges {
        var left, top, right, bottom: Float

        init(_ box: BoundingBox, imageWidth: Int, imageHeight: Int) {
            let w = Float(imageWidth), h = Float(imageHeight)
            left = box.left * w; right = box.right * w
            top = box.top * h; bottom = box.bottom * h
        }
    }

    /// Step 2: union-find over the joinable pairs, each group replaced by its bounding box.
    static func join(_ pieces: [Piece], imageWidth: Int, imageHeight: Int) -> [Detection] {
        var parent = Array(pieces.indices)
        func root(_ i: Int) -> Int {
            var i = i
            while parent[i] != i { parent[i] = parent[parent[i]]; i = parent[i] }
            return i
        }
        for a in pieces.indices {
            for b in pieces.indices where b > a && joinable(pieces[a], pieces[b], imageWidth: imageWidth, imageHeight: imageHeight) {
                let (ra, rb) = (root(a), root(b))
                if ra != rb { parent[max(ra, rb)] = min(ra, rb) }
            }
        }
        var groups: [Int: [Int]] = [:]
        for i in pieces.indices { groups[root(i), default: []].append(i) }
        var result: [Detection] = []
        for i in pieces.indices where root(i) == i {
            let members = groups[i]!
            if members.count == 1 { result.append(pieces[i].detection); continue }
            let best = members.max { pieces[$0].detection.confidence < pieces[$1].detection.confidence }!
            let left = members.map { pieces[$0].edges.left }.min()!, right = members.map { pieces[$0].edges.right }.max()!
            let top = members.map { pieces[$0].edges.top }.min()!, bottom = members.map { pieces[$0].edges.bottom }.max()!
            let w = Float(imageWidth), h = Float(imageHeight)
            let box = BoundingBox(left: left / w, top: top / h, right: right / w, bottom: bottom / h)
            result.append(Detection(classId: pieces[i].detection.classId, confidence: pieces[best].detection.confidence, box: box))
        }
        return result
    }

    /// Whether `a` and `b` are pieces of one object cut by a tile edge (see the type's rule).
    static func joinable(_ a: Piece, _ b: Piece, imageWidth: Int, imageHeight: Int) -> Bool {
        guard a.detection.classId == b.detection.classId, a.tileIndex != b.tileIndex else { return false }
        return cutFacing(a, b, imageWidth: imageWidth, imageHeight: imageHeight)
            || cutFacing(b, a, imageWidth: imageWidth, imageHeight: imageHeight)
    }

    /// `a` is cut on a side of its tile that faces `b`'s tile, and the two line up across it.
    static func cutFacing(_ a: Piece, _ b: Piece, imageWidth: Int, imageHeight: Int) -> Bool {
        let tx = edgeTolerance * Float(a.tile.width), ty = edgeTolerance * Float(a.tile.height)
        let tolX = max(2, tx), tolY = max(2, ty)
        let (ta, tb) = (a.tile, b.tile)
        let e = a.edges, f = b.edges
        let acrossX = overlap1D(e.left, e.right, f.left, f.right) >= -tolX
        let acrossY = overlap1D(e.top, e.bottom, f.top, f.bottom) >= -tolY
        let alignedY = alignment1D(e.top, e.bottom, f.top, f.bottom) >= alignment
        let alignedX = alignment1D(e.left, e.right, f.left, f.right) >= alignment
        // Right side: inside the image, b's tile reaches further right, a's box reaches the edge.
        if ta.x + ta.width < imageWidth, tb.x + tb.width > ta.x + ta.width,
           e.right >= Float(ta.x + ta.width) - tolX, acrossX, alignedY { return true }
        if ta.x > 0, tb.x < ta.x, e.left <= Float(ta.x) + tolX, acrossX, alignedY { return true }
        if ta.y + ta.height < imageHeight, tb.y + tb.height > ta.y + ta.height,
           e.bottom >= Float(ta.y + ta.height) - tolY, acrossY, alignedX { return true }
        if ta.y > 0, tb.y < ta.y, e.top <= Float(ta.y) + tolY, acrossY, alignedX { return true }
        return false
    }

    /// Length of the overlap of two intervals (negative: the gap between them).
    static func overlap1D(_ a0: Float, _ a1: Float, _ b0: Float, _ b1: Float) -> Float {
        min(a1, b1) - max(a0, b0)
    }

    /// Overlap of two intervals over their union (0 when apart).
    static func alignment1D(_ a0: Float, _ a1: Float, _ b0: Float, _ b1: Float) -> Float {
        let union = max(a1, b1) - min(a0, b0)
        return union > 0 ? max(0, overlap1D(a0, a1, b0, b1)) / union : 0
    }

    /// Step 3: greedy NMS by descending confidence; survivors keep their input order.
    static func suppress(_ detections: [Detection], threshold: Float, agnostic: Bool,
                         overlap: (BoundingBox, BoundingBox) -> Float) -> [Detection] {
        let order = detections.indices.sorted {
            detections[$0].confidence != detections[$1].confidence
                ? detections[$0].confidence > detections[$1].confidence : $0 < $1
        }
        var kept: [Int] = []
        for i in order {
            let d = detections[i]
            let overlapped = kept.contains { k in
                (agnostic || detections[k].classId == d.classId) && overlap(detections[k].box, d.box) > threshold
            }
            if !overlapped { kept.append(i) }
        }
        return kept.sorted().map { detections[$0] }
    }
}
