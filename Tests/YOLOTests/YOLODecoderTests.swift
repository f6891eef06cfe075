import Foundation
import XCTest
import YOLO

/// Hand-built head output: grid 3 wide x 2 high, anchors (10,14) (23,27) (37,58), mask [2, 0]
/// (so anchor slot 0 uses (37,58) and slot 1 uses (10,14)), 3 classes, network 64 x 32.
final class YOLODecoderTests: XCTestCase {
    let head = YOLOHead(anchors: [10, 14, 23, 27, 37, 58], mask: [2, 0], classes: 3)
    let gridWidth = 3, gridHeight = 2
    let networkWidth = 64, networkHeight = 32

    /// darknet's entry_index for batch 0: ((n * (5 + classes) + entry) * gridH + row) * gridW + col.
    func index(anchor n: Int, entry: Int, row: Int, col: Int) -> Int {
        ((n * 8 + entry) * gridHeight + row) * gridWidth + col
    }

    func set(_ buffer: inout [Float], anchor n: Int, row: Int, col: Int,
             x: Float, y: Float, w: Float, h: Float, objectness: Float, scores: [Float]) {
        for (entry, value) in ([x, y, w, h, objectness] + scores).enumerated() {
            buffer[index(anchor: n, entry: entry, row: row, col: col)] = value
        }
    }

    /// Everything else is zero, so objectness 0 <= threshold and those slots are skipped.
    func makeOutput() -> [Float] {
        var output = [Float](repeating: 0, count: 96)
        set(&output, anchor: 0, row: 0, col: 1, x: 0.25, y: 0.75, w: 0, h: 0, objectness: 0.9, scores: [0.5, 0.1, 1.0])
        set(&output, anchor: 1, row: 0, col: 1, x: 0.5, y: 0.5, w: 1.5, h: -0.5, objectness: 0.8, scores: [1, 1, 1])
        set(&output, anchor: 1, row: 1, col: 0, x: 0.5, y: 0.5, w: 0, h: 0, objectness: 0.4, scores: [1, 1, 1])
        set(&output, anchor: 0, row: 1, col: 2, x: 0, y: 0, w: 0, h: 0, objectness: 0.6, scores: [0.5, 0.9, 0.2])
        set(&output, anchor: 1, row: 0, col: 2, x: 0, y: 0, w: 0, h: 0, objectness: 0.41, scores: [0, 0, 0])
        return output
    }

    func decode(_ output: [Float], threshold: Float = 0.4) throws -> [Candidate] {
        try YOLODecoder.decode(output, gridWidth: gridWidth, gridHeight: gridHeight, head: head,
                               networkWidth: networkWidth, networkHeight: networkHeight, threshold: threshold)
    }

    func testOrderIsCellsRowMajorThenAnchorsInMaskOrder() throws {
        let candidates = try decode(makeOutput())
        // (row 0, col 1) slot 0, (row 0, col 1) slot 1, (row 0, col 2) slot 1, (row 1, col 2) slot 0;
        // (row 1, col 0) has objectness 0.4, not above the 0.4 threshold.
        XCTAssertEqual(candidates.map(\.objectness), [0.9, 0.8, 0.41, 0.6])
    }

    func testBoxCoordinates() throws {
        let candidates = try decode(makeOutput())
        // Slot 0 uses anchor pair 2 = (37, 58); exp(0) = 1 so w = 37/64, h = 58/32 exactly.
        XCTAssertEqual(candidates[0].box, BoundingBox(x: (1 + 0.25) / 3, y: 0.75 / 2, width: 37.0 / 64, height: 58.0 / 32))
        // Slot 1 uses anchor pair 0 = (10, 14); darknet computes exp(w) * anchor / net in double.
        XCTAssertEqual(candidates[1].box, BoundingBox(
            x: (1 + 0.5) / 3, y: 0.5 / 2,
            width: Float(Foundation.exp(1.5) * 10 / 64), height: Float(Foundation.exp(-0.5) * 14 / 32)))
        XCTAssertEqual(candidates[3].box, BoundingBox(x: 2.0 / 3, y: 1.0 / 2, width: 37.0 / 64, height: 58.0 / 32))
    }

    func testProbabilitiesAreObjectnessTimesScoreKeptAboveThreshold() throws {
        let candidates = try decode(makeOutput())
        // 0.9 x [0.5, 0.1, 1.0]: 0.45 and 0.9 are above 0.4, 0.09 is not.
        XCTAssertEqual(candidates[0].probabilities, [Float(0.9) * 0.5, 0, Float(0.9) * 1.0])
        XCTAssertEqual(candidates[1].probabilities, [0.8, 0.8, 0.8])
        // Objectness above the threshold but no class above it: still a candidate, all zeros.
        XCTAssertEqual(candidates[2].probabilities, [0, 0, 0])
        // 0.6 x [0.5, 0.9, 0.2]: only 0.54 is above 0.4.
        XCTAssertEqual(candidates[3].probabilities, [0, Float(0.6) * 0.9, 0])
    }

    func testThresholdChangesWhatIsKept() throws {
        XCTAssertEqual(try decode(makeOutput(), threshold: 0.85).map(\.objectness), [0.9])
        XCTAssertEqual(try decode(makeOutput(), threshold: 0.85)[0].probabilities, [0, 0, Float(0.9) * 1.0])
        XCTAssertEqual(try decode(makeOutput(), threshold: 0.95), [])
        // With threshold 0 every non-zero objectness counts (the zeros are still <= 0).
        XCTAssertEqual(try decode(makeOutput(), threshold: 0).count, 5)
    }

    func testNaNObjectnessIsSkipped() throws {
        var output = makeOutput()
        output[index(anchor: 0, entry: 4, row: 0, col: 1)] = .nan
        XCTAssertEqual(try decode(output).map(\.objectness), [0.8, 0.41, 0.6])
    }

    func testShapeErrors() {
        XCTAssertThrowsError(try decode([Float](repeating: 0, count: 95))) {
            XCTAssertEqual($0 as? YOLOError, .outputSizeMismatch(
                expected: 96, actual: 95, gridWidth: 3, gridHeight: 2, maskCount: 2, classes: 3))
        }
        let output = makeOutput()
        func decodeError(_ body: () throws -> [Candidate]) -> YOLOError? {
            do { _ = try body(); return nil } catch { return error as? YOLOError }
        }
        XCTAssertEqual(decodeError {
            try YOLODecoder.decode(output, gridWidth: 0, gridHeight: 2, head: head, networkWidth: 64, networkHeight: 32, threshold: 0.5)
        }, .nonPositiveGrid(width: 0, height: 2))
        XCTAssertEqual(decodeError {
            try YOLODecoder.decode(output, gridWidth: 3, gridHeight: 2, head: head, networkWidth: 64, networkHeight: 0, threshold: 0.5)
        }, .nonPositiveNetworkSize(width: 64, height: 0))
        let badMask = YOLOHead(anchors: [10, 14, 23, 27, 37, 58], mask: [2, 3], classes: 3)
        XCTAssertEqual(decodeError {
            try YOLODecoder.decode(output, gridWidth: 3, gridHeight: 2, head: badMask, networkWidth: 64, networkHeight: 32, threshold: 0.5)
        }, .maskIndexOutOfRange(position: 1, index: 3, anchorPairs: 3))
        // A 4-class head needs 2 anchors x (5 + 4) x 6 cells = 108 floats.
        let moreClasses = YOLOHead(anchors: [10, 14, 23, 27, 37, 58], mask: [2, 0], classes: 4)
        XCTAssertEqual(decodeError {
            try YOLODecoder.decode(output, gridWidth: 3, gridHeight: 2, head: moreClasses, networkWidth: 64, networkHeight: 32, threshold: 0.5)
        }, .outputSizeMismatch(expected: 108, actual: 96, gridWidth: 3, gridHeight: 2, maskCount: 2, classes: 4))
    }

    func testUnsafeBufferEntryPointMatchesArrayEntryPoint() throws {
        let output = makeOutput()
        let viaBuffer = try output.withUnsafeBufferPointer {
            try YOLODecoder.decode($0, gridWidth: 3, gridHeight: 2, head: head, networkWidth: 64, networkHeight: 32, threshold: 0.4)
        }
        XCTAssertEqual(viaBuffer, try decode(output))
    }

    func testApplyLogisticTouchesXYObjectnessAndClassesOnly() throws {
        let raw = (0..<96).map { Float($0 % 13) * 0.5 - 3 }
        var activated = raw
        try activated.withUnsafeMutableBufferPointer {
            try YOLODecoder.applyLogistic($0, gridWidth: 3, gridHeight: 2, head: head)
        }
        for n in 0..<2 {
            for entry in 0..<8 {
                for row in 0..<2 {
                    for col in 0..<3 {
                        let i = index(anchor: n, entry: entry, row: row, col: col)
                        let expected = entry == 2 || entry == 3 ? raw[i] : YOLODecoder.logistic(raw[i])
                        XCTAssertEqual(activated[i], expected, "anchor \(n) entry \(entry)")
                    }
                }
            }
        }
        var short = [Float](repeating: 0, count: 10)
        XCTAssertThrowsError(try short.withUnsafeMutableBufferPointer {
            try YOLODecoder.applyLogistic($0, gridWidth: 3, gridHeight: 2, head: head)
        })
    }
}
