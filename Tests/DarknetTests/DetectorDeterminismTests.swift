import Darknet
import Dispatch
import Foundation
import Imaging
import TestSupport
import XCTest
import YOLO

/// Issue #8's determinism and concurrency checks on yolov3-tiny (real weights) at 224×224.
/// Every product is cut into parts by its shape alone, never by the thread count (`GEMM`,
/// `PackedGEMM`, the Winograd passes), so the detections must be bit-identical whatever the
/// thread count (no tolerance needed).
final class DetectorDeterminismTests: XCTestCase {
    func makeDetector(threads: Int? = nil) throws -> Detector {
        try Detector(cfg: try TestData.cfg("yolov3-tiny"), weights: try TestData.path("yolov3-tiny.weights"),
                     options: DetectorOptions(width: 224, height: 224, execution: ExecutionOptions(threads: threads)))
    }

    /// 20 runs on 1 thread and 20 on 2 and 3: every run equals the first, float for float.
    func testTwentyRunsOnOneToThreeThreadsGiveBitIdenticalDetections() throws {
        let image = try Image(contentsOf: try TestData.path("data/dog.jpg"))
        let first = try makeDetector(threads: 1).detect(in: image)
        XCTAssertFalse(first.isEmpty)
        for threads in [1, 2, 3] {
            let detector = try makeDetector(threads: threads)
            for run in 0..<20 {
                let again = try detector.detect(in: image)
                XCTAssertEqual(again, first, "threads \(threads) run \(run)")
                XCTAssertEqual(again.map(\.box.x.bitPattern), first.map(\.box.x.bitPattern))
                XCTAssertEqual(again.map(\.confidence.bitPattern), first.map(\.confidence.bitPattern))
            }
        }
    }

    /// One detector per thread, all at once, give the serial answers.
    func testOneDetectorPerThreadMatchesSerial() throws {
        let names = ["dog", "eagle", "horses", "person"]
        let images = try names.map { try Image(contentsOf: try TestData.path("data/\($0).jpg")) }
        let serialDetector = try makeDetector()
        let serial = try images.map { try serialDetector.detect(in: $0) }
        let detectors = try images.map { _ in try makeDetector() }
        let results = ResultBox(count: images.count)
        DispatchQueue.concurrentPerform(iterations: images.count) { i in
            results.set(i, Result { try detectors[i].detect(in: images[i]) })
        }
        for i in images.indices {
            XCTAssertEqual(try results.get(i).get(), serial[i], names[i])
        }
    }
}
