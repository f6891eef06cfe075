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
    /// Cost: one O(n log n) sort per class with any non-zero score, and IoU tests only between a
    /// candidate and the kept boxes that can overlap it with a similar size (`NMSIndex`); no
    /// per-pair allocation. Bit-identical to darknet's all-pairs loop (tested).
    public static func perClass(_ candidates: [Candidate], iouThreshold: Float) -> [Candidate] {
        perClass(candidates, iouThreshold: iouThreshold, indexed: true)
    }

    /// `indexed: false` tests every pair, as darknet's loop does: the reference the index is
    /// tested against.
    static func perClass(_ candidates: [Candidate], iouThreshold: Float, indexed: Bool) -> [Candidate] {
        var items = removingZeroObjectness(candidates)
        let total = items.count
        if total == 0 { return [] }
        let classes = items.reduce(0) { max($0, $1.probabilities.count) }
        let boxes = items.map(\.box)
        var index = indexed ? NMSIndex(boxes, threshold: iouThreshold) : nil
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
                // darknet's loop, seen from the later candidate: it is zeroed when an earlier
                // candidate whose score was still non-zero on its turn (a kept one) overlaps it.
                index!.removeAll()
                for i in 0..<activeEnd {
                    let b = order[i]
                    if scores[b].bitPattern != 0 {  // already +0: zeroing again changes nothing
                        let boxB = boxes[b]
                        var hit = false
                        index!.forEachCandidate(of: b) { a in
                            hit = darknetIoU(boxes[a], boxB) > iouThreshold
                            return hit
                        }
                        if hit {
                            scores[b] = 0
                            changed = true
                        }
                    }
                    if scores[b] != 0 { index!.insert(b) }
                }
            } else {
                for i in 0..<activeEnd {
                    let a = order[i]
                    if scores[a] == 0 { continue }
                    let boxA = boxes[a]
                    for j in (i + 1)..<activeEnd {
                        let b = order[j]
                        if scores[b].bitPattern == 0 { continue }  // already +0: zeroing again changes nothing
                        if darknetIoU(boxA, boxes[b]) > iouThreshold {
                            scores[b] = 0
                            changed = true
                        }
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
        byObjectness(candidates, iouThreshold: iouThreshold, indexed: true)
    }

    /// `indexed: false`: every pair, darknet's loop (the reference for `NMSIndex`).
    static func byObjectness(_ candidates: [Candidate], iouThreshold: Float, indexed: Bool) -> [Candidate] {
        let items = removingZeroObjectness(candidates)
        let total = items.count
        let boxes = items.map(\.box)
        var order = Array(0..<total)
        var objectness = items.map(\.objectness)
        darknetMergeSort(&order, keys: objectness)
        var suppressed = [Bool](repeating: false, count: total)
        if indexed, var index = NMSIndex(boxes, threshold: iouThreshold) {
            for b in order {
                if objectness[b] == 0 { continue }
                var hit = false
                index.forEachCandidate(of: b) { a in
                    hit = darknetIoU(boxes[a], boxes[b]) > iouThreshold
                    return hit
                }
                if hit {
                    objectness[b] = 0
                    suppressed[b] = true
                } else {
                    index.insert(b)
                }
            }
        } else {
            for i in 0..<total {
                let a = order[i]
                if objectness[a] == 0 { continue }
                for j in (i + 1)..<total {
                    let b = order[j]
                    if objectness[b] == 0 { continue }
                    if darknetIoU(boxes[a], boxes[b]) > iouThreshold {
                        objectness[b] = 0
                        suppressed[b] = true
                    }
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
        classAgnostic(candidates, iouThreshold: iouThreshold, indexed: true)
    }

    /// `indexed: false`: every pair (the reference for `NMSIndex`).
    static func classAgnostic(_ candidates: [Candidate], iouThreshold: Float, indexed: Bool) -> [Candidate] {
        let items = candidates.filter { $0.objectness != 0 }
        let total = items.count
        let boxes = items.map(\.box)
        let scores = items.map { bestScore($0.probabilities) }
        var order = Array(0..<total)
        darknetMergeSort(&order, keys: scores)
        var kept: [Candidate] = []
        if indexed, var index = NMSIndex(boxes, threshold: iouThreshold) {
            for b in order {
                var hit = false
                index.forEachCandidate(of: b) { a in
                    hit = darknetIoU(boxes[a], boxes[b]) > iouThreshold
                    return hit
                }
                if !hit {
                    kept.append(items[b])
                    index.insert(b)
                }
            }
            return kept
        }
        var suppressed = [Bool](repeating: false, count: total)
        for i in 0..<total {
            let a = order[i]
            if suppressed[a] { continue }
            kept.append(items[a])
            for j in (i + 1)..<total {
                let b = order[j]
                if !suppressed[b] && darknetIoU(boxes[a], boxes[b]) > iouThreshold {
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
