import TestSupport
import XCTest
@testable import YOLO

final class StableSortTests: XCTestCase {
    func testSortsDescendingAndKeepsTiesInCurrentOrder() {
        let keys: [Float] = [0.5, 0.9, 0.5, 0, 0.9, 0.7, 0.5]
        var order = Array(0..<keys.count)
        darknetMergeSort(&order, keys: keys)
        XCTAssertEqual(order, [1, 4, 5, 0, 2, 6, 3])
        // Starting from another permutation, ties keep that permutation's order.
        var reversed = Array((0..<keys.count).reversed())
        darknetMergeSort(&reversed, keys: keys)
        XCTAssertEqual(reversed, [4, 1, 5, 6, 2, 0, 3])
    }

    func testMatchesStableSortOnRandomKeysWithManyTies() {
        var generator = SplitMix64(seed: 11)
        for count in [0, 1, 2, 3, 7, 64, 1000] {
            let keys = (0..<count).map { _ in Float(generator.next() % 5) / 4 }
            var order = Array(0..<count)
            darknetMergeSort(&order, keys: keys)
            // Reference: sort by (key descending, index ascending), which is what stability means here.
            let expected = (0..<count).sorted { keys[$0] != keys[$1] ? keys[$0] > keys[$1] : $0 < $1 }
            XCTAssertEqual(order, expected, "count \(count)")
        }
    }

    func testNaNKeysDoNotTrapAndKeepAPermutation() {
        let keys: [Float] = [.nan, 0.3, .nan, 0.9, 0.1, .nan]
        var order = Array(0..<keys.count)
        darknetMergeSort(&order, keys: keys)
        XCTAssertEqual(order.sorted(), Array(0..<keys.count))
    }
}
