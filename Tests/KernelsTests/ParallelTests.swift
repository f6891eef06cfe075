@testable import Kernels
import XCTest

/// `Parallel` hands out pieces dynamically: every index must be run exactly once, by a worker
/// whose index is below the limits, whatever the thread count.
final class ParallelTests: XCTestCase {
    func testEveryIndexRunsOnceOnAValidWorker() {
        for threads in [1, 2, 3, 8] {
            for (count, maximumWorkers) in [(1, 8), (5, 8), (37, 2), (1000, 3), (100_003, 8)] {
                let hits = UnsafeMutableBufferPointer<Int>.allocate(capacity: count)
                defer { hits.deallocate() }
                hits.initialize(repeating: 0)
                let workerSeen = UnsafeMutableBufferPointer<Int>.allocate(capacity: count)
                defer { workerSeen.deallocate() }
                nonisolated(unsafe) let (h, w) = (hits, workerSeen)
                Parallel.forWorkers(of: count, work: 1 << 20, threads: threads, maximumWorkers: maximumWorkers) { worker, range in
                    for i in range {
                        h[i] += 1
                        w[i] = worker
                    }
                }
                XCTAssertTrue(hits.allSatisfy { $0 == 1 }, "\(threads) threads, \(count) items")
                let limit = min(threads, maximumWorkers, count)
                XCTAssertTrue(workerSeen.allSatisfy { $0 >= 0 && $0 < limit }, "\(threads) threads, \(count) items")
            }
        }
    }

    func testSmallWorkRunsInline() {
        var ranges: [Range<Int>] = []
        Parallel.forChunks(of: 10, work: 10, threads: 8) { ranges.append($0) }
        XCTAssertEqual(ranges, [0..<10])
    }
}
