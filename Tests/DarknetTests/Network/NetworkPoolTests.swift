@testable import Darknet
import Dispatch
import Foundation
import Imaging
import TestSupport
import XCTest
import YOLO

/// Issue #53 item 4: a detector keeps a bounded number of networks between calls, whatever
/// batch sizes and bursts of concurrent callers it saw, and `trim()` releases them; the
/// answers stay those of a lone call.
final class NetworkPoolTests: XCTestCase {
    func makeDetector() throws -> Detector {
        try Detector(cfg: try TestData.cfg("yolov3-tiny"), weights: try TestData.path("yolov3-tiny.weights"),
                     options: DetectorOptions(threshold: 0.3, width: 96, height: 96, execution: ExecutionOptions(threads: 1)))
    }

    /// Batches of 1…12 images: at most `maximumIdleNetworks` networks stay, the largest
    /// batches dropped first; each batch gives each image its lone answer.
    func testBatchesOfEverySizeKeepABoundedPool() throws {
        let detector = try makeDetector()
        let image = try Image(contentsOf: try TestData.path("data/dog.jpg"))
        let alone = try detector.detect(in: image)
        XCTAssertFalse(alone.isEmpty)
        for size in 1...12 {
            let results = try detector.detect(in: [Image](repeating: image, count: size))
            XCTAssertEqual(results, [[Detection]](repeating: alone, count: size), "batch \(size)")
            XCTAssertLessThanOrEqual(detector.pool.idleBatches.count, detector.options.maximumIdleNetworks, "after batch \(size)")
        }
        XCTAssertEqual(detector.pool.idleBatches.sorted(), [1, 2], "the largest batches went first")
        detector.trim()
        XCTAssertEqual(detector.pool.idleBatches, [])
        XCTAssertEqual(try detector.detect(in: image), alone, "a trimmed detector makes a network again")
        XCTAssertEqual(detector.pool.idleBatches, [1])
    }

    /// Sixteen callers holding a network at once (each waits inside its call until all are
    /// in): sixteen networks exist during the burst, at most `capacity` after it.
    func testBurstOfConcurrentCallersIsNotKept() throws {
        let detector = try makeDetector()
        let callers = 16
        let inside = DispatchGroup(), release = DispatchSemaphore(value: 0), done = DispatchGroup()
        let batches = BatchLog()
        for _ in 0..<callers {
            inside.enter()
            done.enter()
            Thread.detachNewThread {
                _ = try? detector.pool.with(batch: 1) { network in
                    batches.add(ObjectIdentifier(network))
                    inside.leave()
                    release.wait()
                }
                done.leave()
            }
        }
        XCTAssertEqual(inside.wait(timeout: .now() + 300), .success, "every caller got a network")
        XCTAssertEqual(batches.distinct, callers, "no two callers shared a network")
        for _ in 0..<callers { release.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 300), .success)
        XCTAssertEqual(detector.pool.idleBatches, [1, 1], "capacity \(detector.options.maximumIdleNetworks)")
    }

    /// A capacity of 0 keeps nothing; a caller still gets its network.
    func testZeroCapacityKeepsNothing() throws {
        var options = DetectorOptions(width: 96, height: 96, execution: ExecutionOptions(threads: 1))
        options.maximumIdleNetworks = 0
        let detector = try Detector(cfg: try TestData.cfg("yolov3-tiny"), weights: try TestData.path("yolov3-tiny.weights"),
                                    options: options)
        XCTAssertEqual(detector.pool.idleBatches, [])
        _ = try detector.detect(in: try Image(contentsOf: try TestData.path("data/dog.jpg")))
        XCTAssertEqual(detector.pool.idleBatches, [])
    }
}

private final class BatchLog: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: Set<ObjectIdentifier> = []
    func add(_ id: ObjectIdentifier) { lock.withLock { _ = seen.insert(id) } }
    var distinct: Int { lock.withLock { seen.count } }
}
