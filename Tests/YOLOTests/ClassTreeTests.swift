import XCTest
import YOLO

/// `ClassTree` against darknet's tree.c, worked by hand on small trees.
final class ClassTreeTests: XCTestCase {
    /// Fixtures/classes-14.tree's shape: two roots, then children run by run.
    static let text = """
        thing -1
        place -1
        animal 0
        vehicle 0
        dog 2
        cat 2
        bird 2
        car 3
        bike 3
        terrier 4
        hound 4
        sedan 7
        truck 7
        park 1

        """

    /// read_tree: a group per run of equal parents; `child[parent]` = the group of its run;
    /// leaves are the classes no line names.
    func testGroupsChildrenAndLeavesAreReadTrees() throws {
        let tree = try ClassTree(parsing: Self.text)
        XCTAssertEqual(tree.count, 14)
        XCTAssertEqual(tree.groupOffsets, [0, 2, 4, 7, 9, 11, 13])
        XCTAssertEqual(tree.groupSizes, [2, 2, 3, 2, 2, 2, 1])
        XCTAssertEqual(tree.children, [1, 6, 2, 3, 4, -1, -1, 5, -1, -1, -1, -1, -1, -1])
        XCTAssertEqual(tree.leaves.indices.filter { tree.leaves[$0] }, [5, 6, 8, 9, 10, 11, 12, 13])
        XCTAssertEqual(tree.names[9], "terrier")
        // A parent whose children come in two runs: his reader keeps the later run as its group.
        let split = try ClassTree(parsing: "r -1\ns -1\nx 0\ny 1\nz 0\n")
        XCTAssertEqual(split.groupOffsets, [0, 2, 3, 4])
        XCTAssertEqual(split.children[0], 3)
        // A line without a parent is a root (his sscanf leaves parent at -1); CRLF lines read alike.
        XCTAssertEqual(try ClassTree(parsing: "a\r\nb 0\r\n").parents, [-1, 0])
    }

    func testMalformedFilesNameTheirLine() {
        for (text, line, detail) in [("a -1\n\nb 0\n", 2, "expected 'name parent', found an empty line"),
                                     ("a -1\nb x\n", 2, "the parent 'x' is not an integer"),
                                     ("a 0\n", 1, "the parent 0 is not -1 or the number of an earlier line (0..<0)"),
                                     ("a -1\nb -2\n", 2, "the parent -2 is not -1 or the number of an earlier line (0..<1)"),
                                     ("", 1, "the tree file has no classes")] {
            XCTAssertThrowsError(try ClassTree(parsing: text), text) { error in
                XCTAssertEqual(error as? ClassTree.ParseError, ClassTree.ParseError(line: line, detail: detail), text)
            }
        }
    }

    /// hierarchy_predictions: each score times its parent's product, in class order;
    /// `onlyLeaves` zeroes the inner classes.
    func testHierarchyPredictionsMultiplyAlongThePath() throws {
        let tree = try ClassTree(parsing: "a -1\nb -1\nc 0\nd 0\ne 2\n")
        var scores: [Float] = [0.5, 0.25, 0.5, 0.75, 0.5]
        tree.hierarchyPredictions(&scores, onlyLeaves: false)
        XCTAssertEqual(scores, [0.5, 0.25, 0.25, 0.375, 0.125])
        var leaves: [Float] = [0.5, 0.25, 0.5, 0.75, 0.5]
        tree.hierarchyPredictions(&leaves, onlyLeaves: true)
        XCTAssertEqual(leaves, [0, 0.25, 0, 0.375, 0.125])
        // Strided, as a [region]'s class planes are.
        var strided: [Float] = [0.5, 9, 0.25, 9, 0.5, 9, 0.75, 9, 0.5, 9]
        strided.withUnsafeMutableBufferPointer { tree.hierarchyPredictions($0.baseAddress!, stride: 2, onlyLeaves: false) }
        XCTAssertEqual(stride(from: 0, to: 10, by: 2).map { strided[$0] }, [0.5, 0.25, 0.25, 0.375, 0.125])
    }

    /// hierarchy_top_prediction on path probabilities: descend while p·max stays above the
    /// threshold (p multiplies the path probabilities again), return a leaf, the parent of the
    /// group where it stopped, or group 0's best at the root.
    func testTopPredictionIsPjreddies() throws {
        let tree = try ClassTree(parsing: Self.text)
        func top(_ scores: [Float], _ threshold: Float) -> Int {
            var path = scores
            tree.hierarchyPredictions(&path, onlyLeaves: false)
            return path.withUnsafeBufferPointer { tree.topPrediction($0.baseAddress!, threshold: threshold) }
        }
        //                 thing place animal vehicle dog cat bird car bike terrier hound sedan truck park
        let sure: [Float] = [0.9, 0.1, 0.9, 0.1, 0.9, 0.05, 0.05, 0.5, 0.5, 0.9, 0.1, 0.5, 0.5, 1]
        // p: 0.9 → 0.9·0.81 = 0.729 → 0.729·0.729 = 0.531 → 0.531·0.6561 = 0.349
        XCTAssertEqual(top(sure, 0.3), 9, "terrier: a leaf")
        XCTAssertEqual(top(sure, 0.5), 4, "dog: stops below terrier, returns the group's parent")
        XCTAssertEqual(top(sure, 0.6), 2, "animal")
        XCTAssertEqual(top(sure, 0.8), 0, "thing: stops at the second level")
        XCTAssertEqual(top(sure, 0.95), 0, "below the threshold at the root: group 0's best")
        let place: [Float] = [0.2, 0.8, 0.5, 0.5, 0.3, 0.3, 0.4, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 1]
        XCTAssertEqual(top(place, 0.5), 13, "park: the only child, a leaf")
        XCTAssertEqual(top([Float](repeating: 0, count: 14), 0.5), 0, "no score above 0: class 0, as max_i = 0")
        // Equal scores: the first wins (strict >).
        XCTAssertEqual(top([0.5, 0.5, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1], 0.1), 4,
                       "thing (first of a tie) → animal → dog, whose children all score 0")
    }
}
