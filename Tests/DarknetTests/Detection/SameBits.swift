import Darknet
import Foundation
import Imaging
import TestSupport
import XCTest
import YOLO

/// The engine's bit guarantee, for a detector made by `detector(threads)`: the dog and person
/// photos give the same bits on 1, 2 and 3 workers, twice each, and in one batch as alone.
func assertSameBitsOnThreadsRunsAndBatch(_ detector: (_ threads: Int) throws -> Detector,
                                         file: StaticString = #filePath, line: UInt = #line) throws {
    let images = try ["dog", "person"].map { try Image(contentsOf: try TestData.path("data/\($0).jpg")) }
    let first = try detector(1)
    let alone = try images.map { try first.detect(in: $0) }
    XCTAssertFalse(alone[0].isEmpty, file: file, line: line)
    for threads in [1, 2, 3] {
        let made = try detector(threads)
        for run in 0..<2 {
            let again = try images.map { try made.detect(in: $0) }
            XCTAssertEqual(again.map { $0.map(\.confidence.bitPattern) }, alone.map { $0.map(\.confidence.bitPattern) },
                           "threads \(threads) run \(run)", file: file, line: line)
            XCTAssertEqual(again, alone, "threads \(threads) run \(run)", file: file, line: line)
        }
        XCTAssertEqual(try made.detect(in: images), alone, "threads \(threads), one batch of both images", file: file, line: line)
    }
}
