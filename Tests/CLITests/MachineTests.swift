@testable import darknet_swift
import XCTest

final class MachineTests: XCTestCase {
    func testMedianAndNearestRankPercentile() {
        XCTAssertEqual(Statistics.median([3, 1, 2]), 2)
        XCTAssertEqual(Statistics.median([4, 1, 3, 2]), 2.5, "mean of the two middle values")
        XCTAssertEqual(Statistics.median([]), 0)
        // Nearest rank: the 9th of 10 sorted values is the first with ≥ 90% of the values ≤ it.
        XCTAssertEqual(Statistics.percentile((1...10).map(Double.init).reversed(), 0.9), 9)
        XCTAssertEqual(Statistics.percentile([1, 2, 3], 0.9), 3, "rank ⌈2.7⌉ = 3")
        XCTAssertEqual(Statistics.percentile([5], 0.9), 5)
        XCTAssertEqual(Statistics.percentile([], 0.9), 0)
    }

    func testCPUModelIsNamed() {
        #if os(Linux) || os(macOS)
        XCTAssertNotEqual(Machine.cpuModel(), "unknown")
        XCTAssertFalse(Machine.cpuModel().isEmpty)
        #endif
    }
}
