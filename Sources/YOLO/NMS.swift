/// Non-maximum suppression over decoded candidates.
public enum NMS {
    /// darknet's do_nms_sort (box.c), reproduced step for step:
    /// 1. candidates with `objectness == 0` are removed by darknet's swap-with-last loop;
    /// 2. for each class k in turn, the remaining candidates are sorted by `probabilities[k]`
    ///    descending — stable, as glibc's merge-sort qsort is, so ties keep the order the
    ///    previous class's pass left them in (the input order for class 0) — and every
    ///    candidate whose `probabilities[k]` is non-zero zeroes `probabilities[k]` of each later
    ///    candidate whose IoU with it is `> iouThreshold`.
    /// Returns the remaining candidates in darknet's final array order (the order darknet's
    /// draw_detections prints them), suppressed scores set to 0. Candidates shorter than the
    /// longest `probabilities` count as 0 for the classes they lack.
    /// Cost: one O(n log n) sort per class with any non-zero score, and IoU tests only between
    /// boxes whose x extents can overlap (`SweepIndex`: with a threshold ≥ 0, boxes apart in x
    /// have IoU 0 or NaN and never suppress each other) — O(n²) only when every box overlaps
    /// every other, as darknet always is; no per-pair allocation.
    public static func perClass(_ candidates: [Candidate], iouThreshold: Float) -> [Candidate] {
        perClass(candidates, iouThreshold: iouThreshold, sweep: true)
    }

    /// `sweep: false` tests every pair, as darknet's loop does: the reference the sweep is
    /// tested against.
    static func perClass(_ candidates: [Candidate], iouThreshold: Float, sweep: Bool) -> [Candidate] {
        var items = removingZeroObjectness(candidates)
        let total = items.count
        if total == 0 { return [] }
        let classes = items.reduce(0) { max($0, $1.probabilities.count) }
        let boxes = items.map(\.box)
        let index = sweep && iouThreshold >= 0 ? SweepIndex(boxes) : nil
        var rank = [Int](repeating: 0, count: index == nil ? 0 : total)
        var order = Array(0..<total)
        var scores = [Float](repeating: 0, count: total)
        for k in 0..<classes {
            var anyScore = false
            for i in 0..<total {
                let p = items[i].probabilities
                scores[i] = k < p.count ? p[k] : 0
                if scores[i] != 0 { anyScore = true }
            }
            // All scores zero: the stable sort keeps the order and nothing can suppress.
            if !anyScore { continue }
            darknetMergeSort(&order, keys: scores)
            // Past the last score that is not +0 there is nothing left to zero.
            var activeEnd = total
            while activeEnd > 0 && scores[order[activeEnd - 1]].bitPattern == 0 { activeEnd -= 1 }
            var changed = false
            if index != nil {
                for i in 0..<total { rank[order[i]] = i }
            }
            for i in 0..<activeEnd {
                let a = order[i]
                if scores[a] == 0 { continue }
                let boxA = boxes[a]
                if let index {
                    // The same pairs as the loop below, less those that cannot overlap in x.
                    for position in index.window(for: a) {
                        let b = index.byLeft[position]
                        let r = rank[b]
                        if r <= i || r >= activeEnd || scores[b].bitPattern == 0 { continue }
                        if darknetIoU(boxA, boxes[b]) > iouThreshold {
                            scores[b] = 0
                            changed = true
                        }
                    }
                    continue
                }
                for j in (i + 1)..<activeEnd {
                    let b = order[j]
                    if scores[b].bitPattern == 0 { continue }  // already +0: zeroing again changes nothing
                    if darknetIoU(boxA, boxes[b]) > iouThreshold {
                        scores[b] = 0
                        changed = true
                    }
                }
            }
            if changed {
                for i in 0..<total where k < items[i].probabilities.count
                    && items[i].probabilities[k].bitPattern != scores[i].bitPattern {
                    items[i].probabilities[k] = scores[i]
                }
            }
        }
        return order.map { items[$0] }
    }

    /// darknet's do_nms_obj (box.c): remove `objectness == 0` as do_nms_sort does, sort by
    /// objectness descending (stable, as above), then each candidate with non-zero objectness
    /// sets objectness and all probabilities to 0 on every later candidate with non-zero
    /// objectness whose IoU with it is `> iouThreshold`. Returns the remaining candidates in
    /// darknet's final order, suppressed ones included with zeroed scores.
    public static func byObjectness(_ candidates: [Candidate], iouThreshold: Float) -> [Candidate] {
        let items = removingZeroObjectness(candidates)
        let total = items.count
        var order = Array(0..<total)
        var objectness = items.map(\.objectness)
        darknetMergeSort(&order, keys: objectness)
        var suppressed = [Bool](repeating: false, count: total)
        for i in 0..<total {
            let a = order[i]
            if objectness[a] == 0 { continue }
            for j in (i + 1)..<total {
                let b = order[j]
                if objectness[b] == 0 { continue }
                if darknetIoU(items[a].box, items[b].box) > iouThreshold {
                    objectness[b] = 0
                    suppressed[b] = true
                }
            }
        }
        return order.map { index in
            var candidate = items[index]
            if suppressed[index] {
                candidate.objectness = 0
                candidate.probabilities = [Float](repeating: 0, count: candidate.probabilities.count)
            }
            return candidate
        }
    }

    /// Class-agnostic NMS (not a darknet function): candidates with `objectness == 0` are
    /// dropped; each remaining candidate is scored by its best class (largest probability,
    /// lowest class index on ties; 0 when it has none); candidates are sorted by that score
    /// descending (stable: input order breaks ties); walking that order, a candidate not yet
    /// suppressed is kept and suppresses every later candidate, whatever its class, whose IoU
    /// with it is `> iouThreshold`. Returns the kept candidates, in that sorted order, with
    /// their probabilities unchanged.
    public static func classAgnostic(_ candidates: [Candidate], iouThreshold: Float) -> [Candidate] {
        let items = candidates.filter { $0.objectness != 0 }
        let total = items.count
        let scores = items.map { bestScore($0.probabilities) }
        var order = Array(0..<total)
        darknetMergeSort(&order, keys: scores)
        var suppressed = [Bool](repeating: false, count: total)
        var kept: [Candidate] = []
        for i in 0..<total {
            let a = order[i]
            if suppressed[a] { continue }
            kept.append(items[a])
            for j in (i + 1)..<total {
                let b = order[j]
                if !suppressed[b] && darknetIoU(items[a].box, items[b].box) > iouThreshold {
                    suppressed[b] = true
                }
            }
        }
        return kept
    }

    /// The largest probability (first wins ties; NaN never wins), or 0 for an empty list.
    static func bestScore(_ probabilities: [Float]) -> Float {
        guard var best = probabilities.first else { return 0 }
        for p in probabilities.dropFirst() where p > best || best.isNaN { best = p }
        return best
    }

    /// darknet's loop that moves `objectness == 0` detections to the end:
    /// `for(i = 0; i <= k; ++i) if(dets[i].objectness == 0) { swap(dets[i], dets[k]); --k; --i; }`
    /// Returns the first k + 1 entries in the order the swaps leave them.
    static func removingZeroObjectness(_ candidates: [Candidate]) -> [Candidate] {
        var items = candidates
        var last = items.count - 1
        var i = 0
        while i <= last {
            if items[i].objectness == 0 {
                items.swapAt(i, last)
                last -= 1
            } else {
                i += 1
            }
        }
        items.removeLast(items.count - (last + 1))
        return items
    }
}

/// Boxes ordered by left edge (`x − width/2`, computed as darknet's `overlap` does), so that
/// NMS tests only the boxes that can overlap a given one in x. Two boxes whose x extents do not
/// overlap (`overlap ≤ 0`) have intersection 0 and IoU 0, −0 or NaN: never above a threshold
/// ≥ 0. nil when a box is not finite or has a negative size (then every pair is tested).
struct SweepIndex {
    /// Candidate indices by ascending left edge.
    let byLeft: [Int]
    /// Left edges in `byLeft` order (ascending), as Double.
    let lefts: [Double]
    let left: [Float]
    let right: [Float]
    /// A bound on any box's width, with margin for the rounding of `x ± width/2`.
    let reach: Double

    init?(_ boxes: [BoundingBox]) {
        var left = [Float](), right = [Float]()
        left.reserveCapacity(boxes.count)
        right.reserveCapacity(boxes.count)
        var widest: Float = 0
        for box in boxes {
            guard box.x.isFinite, box.y.isFinite, box.width.isFinite, box.height.isFinite,
                  box.width >= 0, box.height >= 0 else { return nil }
            let l = box.x - box.width / 2, r = box.x + box.width / 2
            guard l.isFinite, r.isFinite else { return nil }
            left.append(l)
            right.append(r)
            widest = max(widest, box.width)
        }
        let byLeft = (0..<boxes.count).sorted { (left[$0], $0) < (left[$1], $1) }
        self.byLeft = byLeft
        self.lefts = byLeft.map { Double(left[$0]) }
        self.left = left
        self.right = right
        self.reach = Double(widest) * (1 + 1e-5) + 1e-30
    }

    /// Positions in `byLeft` of every box that can overlap box `a` in x: a box overlapping it
    /// ends right of `a`'s left edge, so it starts after `left[a] − reach`, and it starts
    /// before `a`'s right edge.
    func window(for a: Int) -> Range<Int> {
        let start = Double(left[a]) - reach - 1e-5 * abs(Double(left[a]))
        let end = Double(right[a])
        return firstIndex(notBelow: start)..<firstIndex(notBelow: end)
    }

    /// The first position whose left edge is ≥ `value` (binary search).
    private func firstIndex(notBelow value: Double) -> Int {
        var low = 0, high = lefts.count
        while low < high {
            let middle = (low + high) / 2
            if lefts[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
