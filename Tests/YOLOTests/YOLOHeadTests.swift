import XCTest
import YOLO

final class YOLOHeadTests: XCTestCase {
    let anchors: [Float] = [10, 14, 23, 27, 37, 58]

    func testOutputCountIsMaskTimesEntriesTimesCells() throws {
        let head = YOLOHead(anchors: anchors, mask: [2, 0], classes: 3)
        XCTAssertEqual(head.entriesPerAnchor, 8)
        // 2 anchors x (4 + 1 + 3) x 2 rows x 3 columns.
        XCTAssertEqual(try head.outputCount(gridWidth: 3, gridHeight: 2), 96)
    }

    func testValidateRejectsEachMalformation() {
        func error(_ head: YOLOHead) -> YOLOError? {
            do { try head.validate(); return nil } catch { return error }
        }
        XCTAssertNil(error(YOLOHead(anchors: anchors, mask: [0, 1, 2], classes: 80)))
        XCTAssertEqual(error(YOLOHead(anchors: anchors, mask: [0], classes: 0)), .nonPositiveClasses(0))
        XCTAssertEqual(error(YOLOHead(anchors: anchors, mask: [], classes: 1)), .emptyMask)
        XCTAssertEqual(error(YOLOHead(anchors: [1, 2, 3], mask: [0], classes: 1)), .oddAnchorCount(3))
        XCTAssertEqual(error(YOLOHead(anchors: anchors, mask: [0, 3], classes: 1)),
                       .maskIndexOutOfRange(position: 1, index: 3, anchorPairs: 3))
        XCTAssertEqual(error(YOLOHead(anchors: anchors, mask: [-1], classes: 1)),
                       .maskIndexOutOfRange(position: 0, index: -1, anchorPairs: 3))
    }

    func testOutputCountRejectsBadGridAndOverflow() {
        let head = YOLOHead(anchors: anchors, mask: [0], classes: 1)
        XCTAssertThrowsError(try head.outputCount(gridWidth: 0, gridHeight: 5)) {
            XCTAssertEqual($0 as? YOLOError, .nonPositiveGrid(width: 0, height: 5))
        }
        XCTAssertThrowsError(try head.outputCount(gridWidth: Int.max / 2, gridHeight: 3)) {
            XCTAssertEqual($0 as? YOLOError,
                           .shapeTooLarge(gridWidth: Int.max / 2, gridHeight: 3, maskCount: 1, classes: 1))
        }
        let manyClasses = YOLOHead(anchors: anchors, mask: [0], classes: Int.max)
        XCTAssertThrowsError(try manyClasses.outputCount(gridWidth: 1, gridHeight: 1)) {
            XCTAssertEqual($0 as? YOLOError,
                           .shapeTooLarge(gridWidth: 1, gridHeight: 1, maskCount: 1, classes: Int.max))
        }
    }
}
