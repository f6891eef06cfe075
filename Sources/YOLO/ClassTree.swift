/// darknet's class hierarchy (`tree`, tree.c): YOLO9000's WordTree, read from a file such as
/// `data/9k.tree` that a `[softmax]` or `[region]` section names with `tree=`.
///
/// File: one line per class, `name parent` (`parent` = the line number, from 0, of the parent
/// class, or −1 for a root). Consecutive lines with the same parent form a *group*: the classes
/// a softmax runs across (`softmax_tree`). Group `g` covers classes
/// `groupOffsets[g] ..< groupOffsets[g] + groupSizes[g]`; `children[c]` is the group whose
/// lines name `c` as their parent (−1 for a leaf).
public struct ClassTree: Sendable, Hashable {
    /// Each class's name (the first word of its line).
    public let names: [String]
    /// Each class's parent class, or −1.
    public let parents: [Int]
    /// The first class of each group.
    public let groupOffsets: [Int]
    /// The class count of each group; they add up to `count`.
    public let groupSizes: [Int]
    /// The group of each class's children, or −1 when no line names it as a parent.
    public let children: [Int]
    /// True for the classes no line names as a parent.
    public let leaves: [Bool]

    /// Number of classes (lines).
    public var count: Int { names.count }

    /// A line of a tree file that darknet's `read_tree` would misread.
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        /// 1-based line number.
        public var line: Int
        public var detail: String

        public init(line: Int, detail: String) {
            self.line = line
            self.detail = detail
        }

        public var description: String { "line \(line): \(detail)" }
    }

    /// Reads a tree file's text as darknet's `read_tree` does: a group ends where the parent
    /// changes from the previous line's. Refused with the line: a line without a name, a parent
    /// that is not an integer, or one that is not −1 or an earlier line (his reader would write
    /// past its arrays; so the first line is a root and no group is empty), and an empty file.
    public init(parsing text: String) throws(ParseError) {
        var names: [String] = [], parents: [Int] = []
        var offsets: [Int] = [], sizes: [Int] = []
        var children: [Int] = []
        var lastParent = -1, groupSize = 0
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        if lines.last?.isEmpty == true { lines.removeLast() }  // the newline that ends the file
        for (number, raw) in lines.enumerated() {
            let words = raw.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            guard let name = words.first else {
                throw ParseError(line: number + 1, detail: "expected 'name parent', found an empty line")
            }
            var parent = -1
            if words.count > 1 {
                guard let value = Int(words[1]) else {
                    throw ParseError(line: number + 1, detail: "the parent '\(words[1])' is not an integer")
                }
                parent = value
            }
            let n = names.count
            if parent < -1 || parent >= n {
                throw ParseError(line: number + 1, detail: "the parent \(parent) is not -1 or the number of an earlier line (0..<\(n))")
            }
            if parent != lastParent {
                offsets.append(n - groupSize)
                sizes.append(groupSize)
                groupSize = 0
                lastParent = parent
            }
            names.append(String(name))
            parents.append(parent)
            children.append(-1)
            if parent >= 0 { children[parent] = offsets.count }
            groupSize += 1
        }
        if names.isEmpty { throw ParseError(line: 1, detail: "the tree file has no classes") }
        offsets.append(names.count - groupSize)
        sizes.append(groupSize)
        var leaves = [Bool](repeating: true, count: names.count)
        for parent in parents where parent >= 0 { leaves[parent] = false }
        (self.names, self.parents, self.groupOffsets, self.groupSizes) = (names, parents, offsets, sizes)
        (self.children, self.leaves) = (children, leaves)
    }

    /// darknet's `hierarchy_predictions`, in place on `count` scores `stride` floats apart: in
    /// class order, each score is multiplied by its parent's (already multiplied) score, so each
    /// becomes the probability of its whole path; `onlyLeaves` then zeroes the inner classes.
    public func hierarchyPredictions(_ scores: UnsafeMutablePointer<Float>, stride: Int = 1, onlyLeaves: Bool) {
        for j in 0..<count where parents[j] >= 0 {
            scores[j * stride] *= scores[parents[j] * stride]
        }
        if onlyLeaves {
            for j in 0..<count where !leaves[j] { scores[j * stride] = 0 }
        }
    }

    /// `hierarchyPredictions` on an array.
    public func hierarchyPredictions(_ scores: inout [Float], onlyLeaves: Bool) {
        precondition(scores.count >= count, "ClassTree: \(scores.count) scores for \(count) classes")
        scores.withUnsafeMutableBufferPointer { hierarchyPredictions($0.baseAddress!, onlyLeaves: onlyLeaves) }
    }

    /// pjreddie's `hierarchy_top_prediction` on path probabilities (after
    /// `hierarchyPredictions`), `stride` floats apart: from group 0, take the group's highest
    /// score (the first on ties; none above 0 picks class 0, as his `max_i = 0` does); while the running
    /// product `p · max` stays above `threshold`, descend into that class's children, returning
    /// it when it is a leaf. Below the threshold: group 0's best class at the root, else the
    /// parent of the group. (The product multiplies path probabilities again, as his does.)
    public func topPrediction(_ scores: UnsafePointer<Float>, stride: Int = 1, threshold: Float) -> Int {
        var p: Float = 1
        var group = 0
        while true {
            var best: Float = 0
            var bestIndex = 0
            for i in 0..<groupSizes[group] {
                let index = groupOffsets[group] + i
                let value = scores[index * stride]
                if value > best {
                    bestIndex = index
                    best = value
                }
            }
            if p * best > threshold {
                p *= best
                group = children[bestIndex]
                if group < 0 { return bestIndex }
            } else if group == 0 {
                return bestIndex
            } else {
                return parents[groupOffsets[group]]
            }
        }
    }
}
