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
///   neither suppress nor be suppressed (its overlap with anything is ≤ 0): it is never filed
///   and never queried.
/// Boxes with a non-finite field (darknet's ternaries silently use the other box's edge when one
/// is NaN) or a centre too far out for a grid cell are kept in a list that every query scans,
/// and such a query scans every kept box: the all-pairs cost, only for such boxes.
///
/// Cost: kept boxes of one level in one cell have pairwise IoU ≤ threshold, which bounds their
/// number (a packing bound that grows as the threshold falls; below 1/64 sizes are not used to
/// prune). A query visits the levels within reach of its own (9 × 9 at most for a threshold of
/// 0.45) and in each only the cells that can hold a box reaching it, or the level's list when
/// that is shorter.
struct NMSIndex {
    private enum Place {
        case never
        case wild
        case grid(level: Level, cell: Cell, conditioned: Bool)
    }

    private struct Level: Hashable { var x: Int; var y: Int }
    private struct Cell: Hashable { var x: Int; var y: Int }

    private struct Grid {
        var members: [Int] = []
        var cells: [Cell: [Int]] = [:]
    }

    private let places: [Place]
    private let left: [Float], right: [Float], top: [Float], bottom: [Float]
    /// Levels apart (in each of x and y) that two conditioned boxes can be and still pass;
    /// nil when the threshold is too small for sizes to prune.
    private let reach: Int?
    private var conditioned: [Level: Grid] = [:]
    private var loose: [Level: Grid] = [:]
    private var wild: [Int] = []
    private var kept: [Int] = []

    /// nil for a threshold that is negative or NaN (then boxes that do not overlap can pass).
    init?(_ boxes: [BoundingBox], threshold: Float) {
        guard threshold >= 0 else { return nil }
        reach = NMSIndex.reach(threshold)
        var places: [Place] = [], left: [Float] = [], right: [Float] = [], top: [Float] = [], bottom: [Float] = []
        places.reserveCapacity(boxes.count)
        for box in boxes {
            let l = box.x - box.width / 2, r = box.x + box.width / 2
            let t = box.y - box.height / 2, b = box.y + box.height / 2
            left.append(l); right.append(r); top.append(t); bottom.append(b)
            places.append(NMSIndex.place(box, l, r, t, b))
        }
        self.places = places
        self.left = left
        self.right = right
        self.top = top
        self.bottom = bottom
    }

    /// 1 + ⌈log2(2 / threshold)⌉: boxes whose edge widths (or heights) differ by more than a
    /// factor 2 / threshold have binary exponents further apart than this. nil below 1/64.
    private static func reach(_ threshold: Float) -> Int? {
        if threshold < 1.0 / 64 { return nil }
        var power = 0
        while Double(sign: .plus, exponent: power, significand: 1) < 2 / Double(threshold) { power += 1 }
        return power + 1
    }

    private static func place(_ box: BoundingBox, _ l: Float, _ r: Float, _ t: Float, _ b: Float) -> Place {
        guard box.x.isFinite, box.y.isFinite, box.width.isFinite, box.height.isFinite,
              l.isFinite, r.isFinite, t.isFinite, b.isFinite else { return .wild }
        if !(r > l) || !(b > t) { return .never }
        let width = Double(r) - Double(l), height = Double(b) - Double(t)
        let level = Level(x: Int(width.exponent), y: Int(height.exponent))
        let cellX = (Double(l) + Double(r)) / 2 / cellSize(level.x)
        let cellY = (Double(t) + Double(b)) / 2 / cellSize(level.y)
        guard abs(cellX) < 0x1p50, abs(cellY) < 0x1p50 else { return .wild }
        let conditioned = box.width > 0 && box.height > 0
            && abs(Double(box.width) - width) <= Double(box.width) / 64
            && abs(Double(box.height) - height) <= Double(box.height) / 64
            && (box.width * box.height).isNormal
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
    }

    /// Files box `i` as kept.
    mutating func insert(_ i: Int) {
        switch places[i] {
        case .never: return
        case .wild: wild.append(i)
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
        case .never:
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
