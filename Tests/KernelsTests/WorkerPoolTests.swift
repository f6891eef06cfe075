@testable import Kernels
import Dispatch
import Foundation
import Synchronization
import XCTest

/// `WorkerPool` runs each piece of a job exactly once, on a worker below the job's `workers`,
/// worker 0 being the caller; helpers spin and then sleep between jobs: back-to-back jobs, jobs
/// after the helpers fell asleep, jobs from two threads at once, nested jobs and wrapped job
/// numbers must all complete. Each scenario runs on a watchdog thread, so a lost wake-up fails
/// the test instead of hanging it.
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

    /// One job of `pieces` on `workers`: each piece must run once, on a worker below `workers`,
    /// and worker 0's pieces on the calling thread.
    private static func check(_ pool: WorkerPool, pieces: Int, workers: Int) -> Bool {
        // Each piece writes only its own elements; the pool's join orders the writes before the check.
        let hits = UnsafeMutableBufferPointer<Int>.allocate(capacity: pieces)
        let ranBy = UnsafeMutableBufferPointer<Int>.allocate(capacity: pieces)
        defer { hits.deallocate(); ranBy.deallocate() }
        hits.initialize(repeating: 0)
        nonisolated(unsafe) let (h, r) = (hits, ranBy)
        let offCaller = Atomic<Int>(0)
        let caller = pthread_self()
        pool.run(pieces: pieces, workers: workers) { worker, piece in
            h[piece] += 1
            r[piece] = worker
            if worker == 0, pthread_equal(pthread_self(), caller) == 0 { offCaller.add(1, ordering: .relaxed) }
        }
        return hits.allSatisfy { $0 == 1 } && ranBy.allSatisfy { $0 >= 0 && $0 < workers }
            && offCaller.load(ordering: .relaxed) == 0
    }

    func testBackToBackJobsRunEveryPieceOnce() {
        withinDeadline(60, "back to back") {
            let pool = WorkerPool()
            for job in 0..<20_000 {
                let workers = [2, 2, 3, 2, 8, 1][job % 6]
                let pieces = [1, 2, 3, 16, 64, 7, 200][job % 7]
                if !Self.check(pool, pieces: pieces, workers: workers) {
                    XCTFail("job \(job): \(pieces) pieces on \(workers) workers")
                    return
                }
            }
        }
    }

    /// Each worker runs its own share first, from the front, and takes others' pieces from the
    /// back: worker `w`'s pieces of its share `pieces·w/n..<pieces·(w+1)/n` are the share's first
    /// ones in order, taken before any other, and whatever others took of a share lies above
    /// what its owner took. (First come, first served fails this: the caller takes piece 1 too.)
    func testEachWorkerRunsItsOwnShareFirst() {
        withinDeadline(60, "shares") {
            let pool = WorkerPool()
            for job in 0..<5000 {
                let workers = [2, 3, 2, 4][job % 4], pieces = [16, 7, 64, 9, 2][job % 5]
                if let failure = Self.checkShares(pool, pieces: pieces, workers: workers) {
                    XCTFail("job \(job), \(pieces) pieces on \(workers) workers: \(failure)")
                    return
                }
            }
        }
    }

    /// One job, recording the order each worker ran its pieces in; the first broken rule, or nil.
    private static func checkShares(_ pool: WorkerPool, pieces: Int, workers: Int) -> String? {
        let order = UnsafeMutableBufferPointer<[Int]>.allocate(capacity: workers)
        defer { order.deinitialize().deallocate() }
        order.initialize(repeating: [])
        nonisolated(unsafe) let o = order
        pool.run(pieces: pieces, workers: workers) { worker, piece in o[worker].append(piece) }   // each worker its own array
        func share(_ piece: Int) -> Int { (0..<workers).last { pieces * $0 / workers <= piece }! }
        var ownerTookUpTo = [Int](repeating: -1, count: workers), lowestStolen = [Int](repeating: pieces, count: workers)
        for worker in 0..<workers {
            let ran = order[worker]
            let own = Array(ran.prefix { share($0) == worker })
            let first = pieces * worker / workers
            if own != Array(first..<first + own.count) {
                return "worker \(worker) ran \(ran)"
            }
            if ran.dropFirst(own.count).contains(where: { share($0) == worker }) { return "worker \(worker) came back to its share: \(ran)" }
            ownerTookUpTo[worker] = own.last ?? -1
            for piece in ran.dropFirst(own.count) { lowestStolen[share(piece)] = min(lowestStolen[share(piece)], piece) }
        }
        for s in 0..<workers where lowestStolen[s] <= ownerTookUpTo[s] {
            return "share \(s): piece \(lowestStolen[s]) stolen below the owner's \(ownerTookUpTo[s])"
        }
        let all: [Int] = (0..<workers).flatMap { order[$0] }
        return all.sorted() == Array(0..<pieces) ? nil : "not every piece once"
    }

    /// Job numbers wrap every 4 jobs here: a helper that slept through a multiple of 4 jobs
    /// sees its old number again and must still find the work (or leave it to the others).
    func testWrappedJobNumbers() {
        withinDeadline(60, "wrapped") {
            let pool = WorkerPool(epochMask: 3)
            for job in 0..<20_000 {
                if job % 500 == 0 { usleep(UInt32(WorkerPool.spinNanoseconds / 1000) * 2) }
                if !Self.check(pool, pieces: 1 + job % 9, workers: 2 + job % 3) { XCTFail("job \(job)"); return }
            }
        }
    }

    /// Longer pauses than `spinNanoseconds`: every job has to wake sleeping helpers.
    func testJobsAfterTheHelpersSleep() {
        withinDeadline(60, "after sleeping") {
            let pool = WorkerPool()
            for job in 0..<200 {
                usleep(UInt32(WorkerPool.spinNanoseconds / 1000) * UInt32(1 + job % 3))
                if !Self.check(pool, pieces: 8, workers: 2 + job % 2) { XCTFail("job \(job)"); return }
            }
        }
    }

    /// Two threads submitting at once (one gets `concurrentPerform`), and jobs nested in jobs.
    func testConcurrentAndNestedJobs() {
        let pool = WorkerPool()
        let failures = Atomic<Int>(0)
        withinDeadline(60, "concurrent") {
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                for job in 0..<2000 where !Self.check(pool, pieces: 1 + job % 20, workers: 2) {
                    failures.add(1, ordering: .relaxed)
                }
            }
        }
        withinDeadline(60, "nested") {
            for _ in 0..<500 {
                let inner = Atomic<Int>(0)
                pool.run(pieces: 4, workers: 2) { _, _ in
                    pool.run(pieces: 5, workers: 3) { _, _ in inner.add(1, ordering: .relaxed) }
                }
                if inner.load(ordering: .relaxed) != 20 { failures.add(1, ordering: .relaxed) }
            }
        }
        XCTAssertEqual(failures.load(ordering: .relaxed), 0)
    }
}
