import XCTest
import YOLO

/// `RegionTreeDecoder` on a hand-made `[region]` output: 2 anchors on a 2×1 grid, 4 tree
/// classes (`a`, `b` roots; `c`, `d` children of `a`), scores already softmaxed per group.
final class RegionTreeDecoderTests: XCTestCase {
    let tree = try! ClassTree(parsing: "a -1\nb -1\nc 0\nd 0\n")
    let head = RegionHead(anchors: [1, 1, 2, 2], classes: 4, softmax: true, tree: try! ClassTree(parsing: "a -1\nb -1\nc 0\nd 0\n"))

    /// Entry planes per anchor (x, y, w, h, objectness, 4 scores), 2 cells each.
    func output() -> [Float] {
        // (anchor, cell): objectness, scores a b c d (paths: c = a·c, d = a·d).
        let slots: [[Float]] = [
            [0.9, 0.8, 0.2, 0.7, 0.3],  // n0 c0: paths a .8 b .2 c .56 d .24
            [0.8, 0.3, 0.7, 0.5, 0.5],  // n0 c1: b .7
            [0.6, 0.1, 0.9, 0.5, 0.5],  // n1 c0: b .9
            [0.7, 0.6, 0.4, 0.9, 0.1],  // n1 c1: a .6 c .54
        ]
        var out = [Float](repeating: 0, count: 2 * 9 * 2)
        for n in 0..<2 {
            for cell in 0..<2 {
                let slot = slots[n * 2 + cell]
                out[(n * 9 + 0) * 2 + cell] = 0.5
                out[(n * 9 + 1) * 2 + cell] = 0.5
                for e in 0..<5 { out[(n * 9 + 4 + e) * 2 + cell] = slot[e] }
            }
        }
        return out
    }

    func decode(_ decoding: TreeDecoding, threshold: Float = 0.5) throws -> [Candidate] {
        try output().withUnsafeBufferPointer {
            try RegionTreeDecoder.decode($0, gridWidth: 2, gridHeight: 1, head: head, tree: tree, decoding: decoding,
                                         threshold: threshold)
        }
    }

    /// (x, width, class, probability) of each candidate.
    func summary(_ candidates: [Candidate]) -> [[Float]] {
        candidates.map { c in
            let j = c.probabilities.firstIndex { $0 != 0 } ?? -1
            return [c.box.x, c.box.width, Float(j), j >= 0 ? c.probabilities[j] : 0]
        }
    }

    /// pjreddie: anchors outermost; hierarchy_top_prediction at -hier; the objectness as the probability.
    func testPjreddiesDecoding() throws {
        XCTAssertEqual(summary(try decode(.pjreddie(hierarchyThreshold: 0.5))), [
            [0.25, 0.5, 0, 0.9],  // a: .8 passes, then .8·.56 = .448 does not
            [0.75, 0.5, 1, 0.8],  // b, a leaf
            [0.25, 1, 1, 0.6],
            [0.75, 1, 0, 0.7],    // a: .6·.54 = .324 ≤ .5
        ])
        XCTAssertEqual(summary(try decode(.pjreddie(hierarchyThreshold: 0.3)))[3], [0.75, 1, 2, 0.7], "c: .324 > .3")
        // Objectness .6 and .7 not above the threshold: kept with objectness 0 and no probability
        // (his NMS swaps them to the end); AlexeyAB's leaves them out.
        let high = try decode(.pjreddie(hierarchyThreshold: 0.5), threshold: 0.75)
        XCTAssertEqual(high.map(\.objectness), [0.9, 0.8, 0, 0])
        XCTAssertEqual(summary(high)[2...], [[0, 0, -1, 0], [0, 0, -1, 0]])
        XCTAssertEqual(try decode(.alexeyAB, threshold: 0.75).count, 2)
    }

    /// AlexeyAB: cells outermost; the last class whose path probability is above 0.5 keeps it.
    func testAlexeyABsDecoding() throws {
        XCTAssertEqual(summary(try decode(.alexeyAB)), [
            [0.25, 0.5, 2, Float(0.8) * Float(0.7)],  // c (.56) after a (.8): the last above .5
            [0.25, 1, 1, 0.9],
            [0.75, 0.5, 1, 0.7],
            [0.75, 1, 2, Float(0.6) * Float(0.9)],
        ])
    }

    func testMismatchedShapesAreErrors() throws {
        var wrong = head
        wrong.classes = 5
        XCTAssertThrowsError(try output().withUnsafeBufferPointer {
            try RegionTreeDecoder.decode($0, gridWidth: 2, gridHeight: 1, head: wrong, tree: tree, decoding: .alexeyAB, threshold: 0.5)
        }) { XCTAssertEqual($0 as? YOLOError, .treeClassMismatch(treeClasses: 4, classes: 5)) }
        XCTAssertThrowsError(try output().withUnsafeBufferPointer {
            try RegionTreeDecoder.decode($0, gridWidth: 3, gridHeight: 1, head: head, tree: tree, decoding: .alexeyAB, threshold: 0.5)
        }) { XCTAssertEqual($0 as? YOLOError, .outputSizeMismatch(expected: 54, actual: 36, gridWidth: 3, gridHeight: 1, maskCount: 2, classes: 4)) }
        // The general decoder does not guess which darknet's tree decoding is meant.
        XCTAssertThrowsError(try YOLODecoder.decode(output(), tensor: .nchw(channels: 18, height: 1, width: 2), head: .region(head),
                                                    networkWidth: 2, networkHeight: 1, threshold: 0.5)) {
            XCTAssertEqual($0 as? DecodeError, .treeHead)
        }
    }
}
