import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The threads `Parallel` and `GEMM` run their workers on: the calling thread is worker 0 and
/// persistent helper threads are the others (as many as the largest job so far asked for). A
/// helper that finishes its share spins for `spinNanoseconds` waiting for the next job before it
/// sleeps, so the back-to-back loops of a forward pass (three or so per convolution) start on
/// every core at once; `DispatchQueue.concurrentPerform` woke its second worker several
/// microseconds late, and a forward pass runs hundreds of such loops (docs/bench-log.md,
/// 2026-11-24).
///
/// One job runs at a time: a job submitted while another thread's job runs (two networks
/// forwarding at once, or a nested loop) runs on `concurrentPerform` instead, with the workers
/// it asked for. The pool is a resource, not a setting: each job says how many workers it uses.
final class WorkerPool: @unchecked Sendable {
    static let shared = WorkerPool()

    /// How long an idle helper waits for work before it sleeps: longer than the serial code
    /// between two loops of a forward pass, short enough that an idle process stops spinning
    /// at once.
    static let spinNanoseconds: UInt64 = 100_000

    /// Bumped once per job; a helper runs a job when it sees a new value.
    private let epoch = Atomic<Int>(0)
    /// Helpers that have not finished the current job (every helper checks in, also those
    /// beyond the job's `workers`, which have nothing to run).
    private let running = Atomic<Int>(0)
    private let busy = Atomic<Bool>(false)
    /// The current job (set before `epoch` is bumped, cleared after every helper is done).
    nonisolated(unsafe) private var body: ((Int) -> Void)?
    nonisolated(unsafe) private var workers = 0
    /// Only touched by the thread that holds `busy`.
    nonisolated(unsafe) private var helpers: [Helper] = []

    private final class Helper: Sendable {
        /// True while the helper sleeps (or is about to) on `wake`; whoever resets it signals.
        let sleeping = Atomic<Bool>(false)
        let wake = DispatchSemaphore(value: 0)
    }

    /// Runs `body(0)`, …, `body(workers − 1)` at the same time, `body(0)` on the calling thread,
    /// and returns when all have returned.
    func run(workers: Int, _ body: (Int) -> Void) {
        guard workers > 1 else {
            body(0)
            return
        }
        guard busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            withoutActuallyEscaping(body) { body in
                nonisolated(unsafe) let body = body
                DispatchQueue.concurrentPerform(iterations: workers) { body($0) }
            }
            return
        }
        defer { busy.store(false, ordering: .releasing) }
        while helpers.count < workers - 1 { startHelper() }
        withoutActuallyEscaping(body) { body in
            self.body = body
            self.workers = workers
            running.store(helpers.count, ordering: .relaxed)
            epoch.add(1, ordering: .sequentiallyConsistent)
            for helper in helpers where helper.sleeping.exchange(false, ordering: .sequentiallyConsistent) {
                helper.wake.signal()
            }
            body(0)
            var spins = 0
            while running.load(ordering: .acquiring) > 0 {
                spins += 1
                if spins % 64 == 0 { sched_yield() }
            }
            self.body = nil
        }
    }

    /// Starts helper number `helpers.count + 1`, waiting for jobs after the current epoch.
    private func startHelper() {
        let helper = Helper()
        let index = helpers.count + 1
        let seen = epoch.load(ordering: .acquiring)
        helpers.append(helper)
        let start = HelperStart(pool: self, helper: helper, index: index, seen: seen)
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { context in
            let start = Unmanaged<HelperStart>.fromOpaque(context!).takeRetainedValue()
            start.pool.loop(start.helper, index: start.index, seen: start.seen)
        }, Unmanaged.passRetained(start).toOpaque())
        precondition(created == 0, "WorkerPool: pthread_create failed (\(created))")
        pthread_detach(thread)
    }

    /// What a new helper thread is started with.
    private final class HelperStart: @unchecked Sendable {
        let pool: WorkerPool, helper: Helper, index: Int, seen: Int
        init(pool: WorkerPool, helper: Helper, index: Int, seen: Int) {
            (self.pool, self.helper, self.index, self.seen) = (pool, helper, index, seen)
        }
    }

    private func loop(_ helper: Helper, index: Int, seen: Int) -> Never {
        var seen = seen
        while true {
            seen = waitForJob(helper, after: seen)
            if index < workers { body!(index) }
            running.subtract(1, ordering: .releasing)
        }
    }

    /// Spins until `epoch` passes `seen`, then sleeps on `wake` until `run` resets `sleeping`
    /// and signals. Returns the new epoch.
    private func waitForJob(_ helper: Helper, after seen: Int) -> Int {
        var start: UInt64 = 0
        var spins = 0
        while true {
            let current = epoch.load(ordering: .acquiring)
            if current != seen { return current }
            spins += 1
            guard spins % 64 == 0 else { continue }
            let now = DispatchTime.now().uptimeNanoseconds
            if start == 0 { start = now }
            if now - start < Self.spinNanoseconds {
                sched_yield()
                continue
            }
            // Sleep. `run` bumps `epoch` and then resets `sleeping`; here `sleeping` is set and
            // then `epoch` read again (both sequentially consistent), so one of the two sees
            // the other and the job is never missed.
            helper.sleeping.store(true, ordering: .sequentiallyConsistent)
            let again = epoch.load(ordering: .sequentiallyConsistent)
            if again != seen {
                // A job came meanwhile: take `sleeping` back, or take the signal `run` sends.
                if !helper.sleeping.exchange(false, ordering: .sequentiallyConsistent) { helper.wake.wait() }
                return again
            }
            helper.wake.wait()
            (start, spins) = (0, 0)
        }
    }
}
