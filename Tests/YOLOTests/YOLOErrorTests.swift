import XCTest
import YOLO

final class YOLOErrorTests: XCTestCase {
    func testDescriptionsSayWhatWasExpected() {
        let cases: [(YOLOError, [String])] = [
            (.nonPositiveGrid(width: 0, height: 13), ["0x13", "at least 1"]),
            (.nonPositiveNetworkSize(width: 416, height: -1), ["416x-1", "at least 1"]),
            (.nonPositiveClasses(0), ["classes=0", "at least 1"]),
            (.emptyMask, ["mask", "at least one"]),
            (.oddAnchorCount(5), ["5 values", "even"]),
            (.maskIndexOutOfRange(position: 1, index: 9, anchorPairs: 6), ["mask[1] = 9", "0..<6"]),
            (.outputSizeMismatch(expected: 96, actual: 95, gridWidth: 3, gridHeight: 2, maskCount: 2, classes: 3),
             ["95 floats", "expected 96", "2 anchors x (4 + 1 + 3) x 2 x 3"]),
            (.shapeTooLarge(gridWidth: 1, gridHeight: 1, maskCount: 1, classes: Int.max), ["overflows"]),
        ]
        for (error, fragments) in cases {
            for fragment in fragments {
                XCTAssertTrue(error.description.contains(fragment), "\(error.description) lacks \(fragment)")
            }
        }
    }
}
