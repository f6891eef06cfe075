import XCTest
import YOLO

final class ClassificationTests: XCTestCase {
    func testTopK() throws {
        let labels = ["cat", "dog", "fox", "owl"]
        let top = try Classification.topK([0.1, 0.6, 0.1, 0.2], labels: labels, k: 3)
        XCTAssertEqual(top, [Classification(identifier: "dog", confidence: 0.6), Classification(identifier: "owl", confidence: 0.2),
                             Classification(identifier: "cat", confidence: 0.1)], "the 0.1 tie keeps label order")
        XCTAssertEqual(try Classification.topK([0.1, .nan], labels: ["a", "b"], k: 5).map(\.identifier), ["a"])
        XCTAssertEqual(try Classification.topK([0.1], labels: ["a"], k: 0), [])
        XCTAssertThrowsError(try Classification.topK([0.1], labels: labels, k: 1)) {
            XCTAssertEqual($0 as? DecodeError, .labelCountMismatch(labels: 4, classes: 1))
        }
        XCTAssertThrowsError(try Classification.topK([0.1], labels: ["a"], k: -1)) {
            XCTAssertEqual($0 as? DecodeError, .negativeCount(-1))
        }
    }
}
