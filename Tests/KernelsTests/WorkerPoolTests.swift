@testable import Kernels
import Dispatch
import Foundation
import Synchronization
import XCTest

/// `WorkerPool` runs each worker of a job exactly once, worker 0 on the caller, the others on
/// helper threads that spin and then sleep between jobs: back-to-back jobs, jobs after the
/// helpers fell asleep, jobs from two threads at once and nested jobs must all complete. Each
/// scenario runs on a watchdog thread, so a lost wake-up fails the test instead of hanging it.
final class WorkerPoolTests: XCTestCase {
    /// Runs `body` on another thread and fails if it has not returned after `seconds`.
    private func withinDeadline(_ seconds: Double, _ name: String, _ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        Thread {
            body()
            done.signal()
        }.start()
        XCTAssertEqual(done.wait(timeout: .now() + seconds), .success, "\(name): a job never completed")
    }

    /// One job of `workers`: each index must run once, index 0 on the calling thread.
    private static func check(_ pool: WorkerPool, workers: Int) -> Bool {
        // Each worker writes only its own element; the pool's join orders the writes before the check.
        let hits = UnsafeMutableBufferPointer<Int>.allocate(capacity: workers)
        defer { hits.deallocate() }
        hits.initialize(repeating: 0)
        nonisolated(unsafe) let h = hits
        let onCaller = Atomic<Bool>(false)
        let caller = pthread_self()
        pool.run(workers: workers) { worker in
            h[worker] += 1
            if worker == 0 { onCaller.store(pthread_equal(pthread_self(), caller) != 0, ordering: .relaxed) }
        }
        return hits.allSatisfy { $0 == 1 } && onCaller.load(ordering: .relaxed)
    }

    func testBackToBackJobsRunEveryWorkerOnce() {
        withinDeadline(60, "back to back") {
            let pool = WorkerPool()
            for job in 0..<20_000 {
                let workers = [2, 2, 3, 2, 8, 1][job % 6]
                if !Self.check(pool, workers: workers) { XCTFail("job \(job) of \(workers) workers"); return }
            }
        }
    }

    /// Longer pauses than `spinNanoseconds`: every job has to wake sleeping helpers.
    func testJobsAfterTheHelpersSleep() {
        withinDeadline(60, "after sleeping") {
            let pool = WorkerPool()
            for job in 0..<200 {
                usleep(UInt32(WorkerPool.spinNanoseconds / 1000) * UInt32(1 + job % 3))
                if !Self.check(pool, workers: 2 + job % 2) { XCTFail("job \(job)"); return }
            }
        }
    }

    /// Two threads submitting at once (one gets `concurrentPerform`), and jobs nested in jobs.
    func testConcurrentAndNestedJobs() {
        let pool = WorkerPool()
        let failures = Atomic<Int>(0)
        withinDeadline(60, "concurrent") {
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                for _ in 0..<2000 where !Self.check(pool, workers: 2) { failures.add(1, ordering: .relaxed) }
            }
        }
        withinDeadline(60, "nested") {
            for _ in 0..<500 {
                let inner = Atomic<Int>(0)
                pool.run(workers: 2) { _ in
                    pool.run(workers: 3) { _ in inner.add(1, ordering: .relaxed) }
                }
                if inner.load(ordering: .relaxed) != 6 { failures.add(1, ordering: .relaxed) }
            }
        }
        XCTAssertEqual(failures.load(ordering: .relaxed), 0)
    }
}
