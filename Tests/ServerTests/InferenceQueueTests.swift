import CommandSupport
import DarknetServer
import Dispatch
import Foundation
import XCTest
import Darknet

/// `InferenceQueue` in this process: every job is answered exactly once, whatever lands
/// first (its deadline, its cancellation, its batch).
final class InferenceQueueTests: XCTestCase {
    /// Jobs whose deadline has long passed, each cancelled from another thread at about the
    /// moment the inference thread takes it out of the queue as expired (what a request's
    /// deadline timer or a client leaving does). Each must be answered `deadlineExceeded` or
    /// `CancellationError` within the bound. A continuation resumed while the queue's lock is
    /// held deadlocked against such a cancellation (the cancelling thread holds the task's
    /// status lock and waits for the queue's lock): the server stopped answering anyone.
    func testExpiredJobsCancelledAsTheyAreTakenAreEachAnsweredOnce() throws {
        let models = try ServeModels(self)
        let spec = ModelSpec(name: "cheap", cfg: models.detectorCfg, weights: models.detectorWeights, names: models.names)
        let served = try ServedModel(spec, options: ModelOptions(), queue: QueueSettings(capacity: 8, maxBatch: 1, windowMilliseconds: 0),
                                     metrics: ServerMetrics())
        let queue = served.queue
        let shape = served.input.shape
        let job = InferenceQueue.Job(input: [Float](repeating: 0.5, count: shape.reduce(1, *)), width: 64, height: 64,
                                     work: .detect(DetectorOptions()))
        let rounds = 10_000
        final class Outcome: @unchecked Sendable {
            let lock = NSLock()
            var round = 0
            var answered = 0
            var unexpected: [String] = []
        }
        let outcome = Outcome()
        let finished = DispatchSemaphore(value: 0)
        // A plain thread (not the cooperative pool) cancels, as NIO's event loop does when a
        // client leaves; deadlocked, it never signals `finished`.
        Thread {
            for round in 0..<rounds {
                outcome.lock.withLock { outcome.round = round }
                let answered = DispatchSemaphore(value: 0)
                let task = Task {
                    do {
                        _ = try await queue.submit(job, deadline: 0)
                        outcome.lock.withLock { outcome.unexpected.append("round \(round): answered though expired") }
                    } catch ServerError.deadlineExceeded, is CancellationError {
                        outcome.lock.withLock { outcome.answered += 1 }
                    } catch {
                        outcome.lock.withLock { outcome.unexpected.append("round \(round): \(error)") }
                    }
                    answered.signal()
                }
                // 0 to 99 µs after the submission: across its registration, queueing and expiry.
                let spin = DispatchTime.now().uptimeNanoseconds + UInt64(round % 100) * 1_000
                while DispatchTime.now().uptimeNanoseconds < spin {}
                task.cancel()
                if answered.wait(timeout: .now() + 10) == .timedOut { return }
            }
            finished.signal()
        }.start()
        let done = finished.wait(timeout: .now() + 60) == .success
        let (round, answered, unexpected) = outcome.lock.withLock { (outcome.round, outcome.answered, outcome.unexpected) }
        XCTAssertEqual(unexpected, [])
        // Stuck, the queue's lock may be held for good: nothing more is asked of it.
        guard done else { return XCTFail("round \(round) of \(rounds) was never answered or its cancellation never returned") }
        XCTAssertEqual(answered, rounds)
        XCTAssertEqual(queue.depth, 0, "nothing waits once every job was answered")
    }
}
