/// The boxes a greedy NMS has kept so far, filed by position and size, so that a new candidate
/// is tested only against the kept boxes whose darknet IoU with it can exceed the threshold.
///
/// Every greedy NMS here (darknet's do_nms_sort and do_nms_obj, DIoU, class-agnostic, Core ML)
/// is the same walk: in score order, a candidate is suppressed when some earlier *kept*
/// candidate has `IoU(kept, candidate) > threshold`, and kept otherwise. Darknet tests every
/// later candidate against every kept one; this index returns a superset of the kept boxes
/// that can pass the test, so the answers are bit-identical while the work is not quadratic.
///
/// Why a box can be skipped, for a threshold ≥ 0 (the index is not used otherwise):
/// - **No overlap.** darknet's intersection is 0 unless both `overlap`s are > 0, that is
///   `min(right) > max(left)` and the same in y, computed from the Float edges `x ± width/2`
///   that `darknetOverlap` uses. An IoU of 0, −0 or NaN never exceeds the threshold. Kept boxes
///   sit in a grid by centre, one grid per size level, and a query visits only the cells whose
///   boxes can reach it.
/// - **Sizes too different.** For "conditioned" boxes (edges within 1/64 of `x ± width/2`,
///   normal areas) the computed IoU is at most 1.08 × the smaller of the width and height
///   ratios, so a box whose width or height differs by more than a factor 2 / threshold cannot
///   pass; a level is a pair of binary exponents of (edge width, edge height), and a query
///   searches the levels within that factor.
/// - **Empty boxes.** A finite box whose edges do not span a positive width and height can
///   neither suppress nor be suppressed (its overlap with anything is ≤ 0), nor can a box
///   whose area `width × height` is infinite or NaN (darknet's union is then ±∞ or NaN): they
///   are never filed and never queried.
/// - **NaN edges.** A later box with a NaN edge has IoU NaN or 0 with any box: it is never
///   suppressed.
///   Kept, it can still suppress under darknet's IoU (its ternaries take the other box's
///   edge), so such kept boxes sit in a list that every query scans.
/// - **Duplicates.** The IoU reads a box only through its edges and area (DIoU: its fields);
///   a kept box with the same bits as one already filed gives every query the same answer, so
///   it is not filed again.
/// Boxes with an infinite edge or a centre too far out for a grid cell are scanned by every
/// query and scan every kept box: the all-pairs cost, only for such boxes.
///
/// Cost: conditioned kept boxes of one level in one cell have pairwise IoU ≤ threshold, which
/// bounds their number (a packing bound that grows as the threshold falls). A query visits the
/// levels within reach of its own (9 × 9 at most for a threshold of 0.45; every level for a
/// threshold of 0) and in each only the cells that can hold a box reaching it, or the level's
/// list when that is shorter. What is not bounded: many distinct kept boxes that are all
/// unconditioned (centres over 2^17 times their size from 0, or subnormal areas) in one cell,
/// or with NaN or infinite edges, which no model's output has.
struct NMSIndex {
    /// What the scheme compares boxes with; it decides which boxes can never pass.
    enum Measure {
        /// `darknetIoU` (do_nms_sort, do_nms_obj, class-agnostic): a kept box with a NaN
        /// centre still suppresses (darknet's ternaries take the other box's edges).
        case darknetIoU
        /// `BoundingBox.iou` (Core ML): a box with a NaN field has IoU 0 with everything.
        case guardedIoU
        /// `BoundingBox.distanceIoU` (DIoU): the guarded IoU minus a term ≥ 0 (or NaN), and
        /// it reads the centres, not only the edges.
        case distanceIoU
    }

    private enum Place {
        /// Passes with no box, kept or queried (empty, non-finite area).
        case never
        /// A NaN edge: as a query it passes with nothing; kept, every query scans it.
        case nanEdges
        /// An infinite edge or a centre beyond any grid cell: scanned by every query, and it
        /// scans every kept box.
        case wild
        case grid(level: Level, cell: Cell, conditioned: Bool)
    }

    private struct Level: Hashable { var x: Int; var y: Int }
    private struct Cell: Hashable { var x: Int; var y: Int }
    /// The bits a box's comparisons depend on: kept boxes with equal keys give every query
    /// the same result, so only the first is filed.
    private struct Key: Hashable { var a: UInt32, b: UInt32, c: UInt32, d: UInt32, e: UInt32 }

    private struct Grid {
        var members: [Int] = []
        var cells: [Cell: [Int]] = [:]
    }

    private let places: [Place]
    private let keys: [Key]
    private let left: [Float], right: [Float], top: [Float], bottom: [Float]
    /// Levels apart (in each of x and y) that two conditioned boxes can be and still pass;
    /// nil when the threshold is 0 (sizes do not prune).
    private let reach: Int?
    private var conditioned: [Level: Grid] = [:]
    private var loose: [Level: Grid] = [:]
    private var wild: [Int] = []
    private var kept: [Int] = []
    private var keptKeys: Set<Key> = []

    /// nil for a threshold that is negative or NaN (then boxes that do not overlap can pass).
    init?(_ boxes: [BoundingBox], threshold: Float, measure: Measure = .darknetIoU) {
        guard threshold >= 0 else { return nil }
        reach = NMSIndex.reach(threshold)
        var places: [Place] = [], keys: [Key] = []
        var left: [Float] = [], right: [Float] = [], top: [Float] = [], bottom: [Float] = []
        places.reserveCapacity(boxes.count)
        for box in boxes {
            let l = box.x - box.width / 2, r = box.x + box.width / 2
            let t = box.y - box.height / 2, b = box.y + box.height / 2
            let area = box.width * box.height
            left.append(l); right.append(r); top.append(t); bottom.append(b)
            places.append(NMSIndex.place(box, l, r, t, b, area, measure))
            // darknetIoU and the guarded IoU read a box only through its edges (x ± width/2,
            // y ± height/2, as darknetOverlap computes them) and its area; DIoU also reads the centre.
            keys.append(measure == .distanceIoU
                ? Key(a: box.x.bitPattern, b: box.y.bitPattern, c: box.width.bitPattern, d: box.height.bitPattern, e: 0)
                : Key(a: l.bitPattern, b: r.bitPattern, c: t.bitPattern, d: b.bitPattern, e: area.bitPattern))
        }
        self.places = places
        self.keys = keys
        self.left = left
        self.right = right
        self.top = top
        self.bottom = bottom
    }

    /// 1 + ⌈log2(2 / threshold)⌉: boxes whose edge widths (or heights) differ by more than a
    /// factor 2 / threshold have binary exponents further apart than this. nil for 0.
    private static func reach(_ threshold: Float) -> Int? {
        if threshold == 0 { return nil }
        var power = 0
        while power < 400 && Double(sign: .plus, exponent: power, significand: 1) < 2 / Double(threshold) { power += 1 }
        return power + 1
    }

    private static func place(_ box: BoundingBox, _ l: Float, _ r: Float, _ t: Float, _ b: Float,
                              _ area: Float, _ measure: Measure) -> Place {
        // darknet's union is `area + other area − intersection`: with this area ±∞ or NaN it
        // is ±∞ or NaN, and the IoU 0, −0 or NaN (the guarded IoU and DIoU follow).
        if !area.isFinite { return .never }
        if l.isNaN || r.isNaN || t.isNaN || b.isNaN {
            // A NaN edge of the later box makes darknetOverlap NaN: it is never suppressed.
            // Kept, only darknetIoU lets it suppress (the other two measures give 0 or −∞).
            return measure == .darknetIoU ? .nanEdges : .never
        }
        if !(box.x.isFinite && box.y.isFinite && l.isFinite && r.isFinite && t.isFinite && b.isFinite) { return .wild }
        if !(r > l) || !(b > t) { return .never }
        let width = Double(r) - Double(l), height = Double(b) - Double(t)
        let level = Level(x: Int(width.exponent), y: Int(height.exponent))
        let cellX = (Double(l) + Double(r)) / 2 / cellSize(level.x)
        let cellY = (Double(t) + Double(b)) / 2 / cellSize(level.y)
        guard abs(cellX) < 0x1p50, abs(cellY) < 0x1p50 else { return .wild }
        let conditioned = box.width > 0 && box.height > 0
            && abs(Double(box.width) - width) <= Double(box.width) / 64
            && abs(Double(box.height) - height) <= Double(box.height) / 64
            && area.isNormal
        return .grid(level: level, cell: Cell(x: Int(cellX.rounded(.down)), y: Int(cellY.rounded(.down))),
                     conditioned: conditioned)
    }

    /// A level's cells are twice as wide as its widest box: 2^(exponent + 2).
    private static func cellSize(_ exponent: Int) -> Double { Double(sign: .plus, exponent: exponent + 2, significand: 1) }

    /// Forget every kept box (the next class's pass starts empty).
    mutating func removeAll() {
        conditioned.removeAll(keepingCapacity: true)
        loose.removeAll(keepingCapacity: true)
        wild.removeAll(keepingCapacity: true)
        kept.removeAll(keepingCapacity: true)
        keptKeys.removeAll(keepingCapacity: true)
    }

    /// Files box `i` as kept, unless it can never pass or a kept box with the same key is filed.
    mutating func insert(_ i: Int) {
        if case .never = places[i] { return }
        guard keptKeys.insert(keys[i]).inserted else { return }
        switch places[i] {
        case .never: return
        case .nanEdges, .wild: wild.append(i)
        case let .grid(level, cell, isConditioned):
            if isConditioned {
                conditioned[level, default: Grid()].members.append(i)
                conditioned[level]!.cells[cell, default: []].append(i)
            } else {
                loose[level, default: Grid()].members.append(i)
                loose[level]!.cells[cell, default: []].append(i)
            }
        }
        kept.append(i)
    }

    /// Calls `body` with every kept box that may have `darknetIoU(kept, boxes[q]) > threshold`
    /// (and possibly others), until `body` returns true.
    func forEachCandidate(of q: Int, _ body: (Int) -> Bool) {
        switch places[q] {
        case .never, .nanEdges:
            return
        case .wild:
            for k in kept where body(k) { return }
        case let .grid(level, _, isConditioned):
            for k in wild where body(k) { return }
            let near = isConditioned ? reach : nil
            if search(conditioned, near: near, around: level, q, body) { return }
            _ = search(loose, near: nil, around: level, q, body)
        }
    }

    /// Visits the grids' boxes whose centres can reach box q; true when `body` stopped.
    private func search(_ grids: [Level: Grid], near: Int?, around level: Level, _ q: Int, _ body: (Int) -> Bool) -> Bool {
        if grids.isEmpty { return false }
        if let near, (2 * near + 1) * (2 * near + 1) < grids.count {
            for dy in -near...near {
                for dx in -near...near {
                    let other = Level(x: level.x + dx, y: level.y + dy)
                    if let grid = grids[other], visit(grid, other, q, body) { return true }
                }
            }
            return false
        }
        for (other, grid) in grids {
            if let near, abs(other.x - level.x) > near || abs(other.y - level.y) > near { continue }
            if visit(grid, other, q, body) { return true }
        }
        return false
    }

    /// The cells of one level whose boxes can overlap box q: a box of this level is narrower
    /// than 2^(level + 1), so its centre lies within 2^level outside q's edges.
    private func visit(_ grid: Grid, _ level: Level, _ q: Int, _ body: (Int) -> Bool) -> Bool {
        let sizeX = NMSIndex.cellSize(level.x), sizeY = NMSIndex.cellSize(level.y)
        let x0 = ((Double(left[q]) - sizeX / 4) / sizeX).rounded(.down)
        let x1 = ((Double(right[q]) + sizeX / 4) / sizeX).rounded(.down)
        let y0 = ((Double(top[q]) - sizeY / 4) / sizeY).rounded(.down)
        let y1 = ((Double(bottom[q]) + sizeY / 4) / sizeY).rounded(.down)
        let cellCount = (x1 - x0 + 1) * (y1 - y0 + 1)
        if !(cellCount < Double(grid.members.count)) || !(abs(x0) < 0x1p52 && abs(x1) < 0x1p52 && abs(y0) < 0x1p52 && abs(y1) < 0x1p52) {
            for k in grid.members where body(k) { return true }
            return false
        }
        for cy in Int(y0)...Int(y1) {
            for cx in Int(x0)...Int(x1) {
                if let boxes = grid.cells[Cell(x: cx, y: cy)] {
                    for k in boxes where body(k) { return true }
                }
            }
        }
        return false
    }
}
