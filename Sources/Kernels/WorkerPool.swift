import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The threads `Parallel` and `GEMM` run their pieces on: the calling thread is worker 0 and
/// persistent helper threads are the others (as many as the largest job so far asked for).
///
/// A job is `pieces` pieces of work. Each worker owns a contiguous share of them (worker `w` of
/// `n` the pieces from `w·pieces/n`) and takes its own from the front; once its share is done it
/// takes what is left of the others' from the back. The job is over when every piece is done: a
/// helper that has not started yet (asleep, or waiting for a core another process holds) is not
/// waited for, and the others do its share. Only a piece already taken is waited for, so work is
/// cut into many small pieces; which worker runs a piece never changes a result (callers cut by
/// shape, see `GEMM`).
///
/// The shares keep work where its data is: callers number pieces along the data (channels,
/// columns, bands), so on an idle machine worker `w` of two back-to-back jobs gets the same part
/// of the tensor both times and reads what it wrote itself, from its own caches. Pieces handed
/// out first come, first served went to either core, and a core reads another's data at a
/// third of the speed when the two share no cache (docs/bench-log.md).
///
/// A helper that finds no piece spins for `spinNanoseconds` waiting for the next job before it
/// sleeps, so the back-to-back loops of a forward pass (three or so per convolution) start on
/// every core at once; `DispatchQueue.concurrentPerform` woke its second worker several
/// microseconds late, and a forward pass runs hundreds of such loops (docs/bench-log.md).
///
/// One job runs at a time: a job submitted while another thread's job runs (two networks
/// forwarding at once, or a nested loop) runs on `concurrentPerform` instead, with the workers
/// it asked for. The pool is a resource, not a setting: each job says how many workers it uses.
final class WorkerPool: @unchecked Sendable {
    static let shared = WorkerPool()

    /// Where job numbers wrap (`Ticket.epochMask`; tests pass a small one to wrap often).
    private let epochMask: Int

    init(epochMask: Int = Ticket.epochMask) {
        precondition(epochMask > 0 && epochMask <= Ticket.epochMask)
        self.epochMask = epochMask
    }

    /// How long an idle helper waits for work before it sleeps: longer than the serial code
    /// between two loops of a forward pass, short enough that an idle process stops spinning
    /// at once.
    static let spinNanoseconds: UInt64 = 100_000

    /// Most pieces (the fields of `Share`) and most workers (of `Ticket`) one job can have.
    static let maximumPieces = 0xFFFF, maximumWorkers = 511

    /// The current job in one word: its number and workers. (Its pieces are in the shares.)
    struct Ticket {
        var epoch, workers: Int
        init(epoch: Int, workers: Int) { (self.epoch, self.workers) = (epoch, workers) }
        /// Epochs wrap at 2²² jobs (the word stays positive); they are only compared for equality.
        static let epochMask = 0x3F_FFFF
        init(_ word: Int) { (epoch, workers) = (word >> 41, word >> 32 & 511) }
        /// Also the tag that tells one job's `Share` from another's (its low 32 bits are zero).
        var word: Int { epoch << 41 | workers << 32 }
    }

    /// What is left of one worker's share of a job, in one word, so that taking a piece is one
    /// compare-and-swap that fails once the share is empty or the job is another one: the job's
    /// `Ticket.word` and the share's pieces `next..<end` not yet taken. (With the workers in the
    /// tag, a helper whose job number wrapped around can only take a piece of a job it may join.)
    struct Share {
        var tag, next, end: Int
        init(tag: Int, next: Int, end: Int) { (self.tag, self.next, self.end) = (tag, next, end) }
        init(_ word: Int) { (tag, next, end) = (word & ~0xFFFF_FFFF, word >> 16 & 0xFFFF, word & 0xFFFF) }
        var word: Int { tag | next << 16 | end }
    }

    /// One worker's `Share` word, on a cache line of its own (the padding keeps the next
    /// object's word more than 64 bytes away), so workers taking their own pieces do not contend.
    private final class ShareSlot: Sendable {
        let word = Atomic<Int>(0)
        private let padding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
    }

    private let ticket = Atomic<Int>(0)
    /// Worker `w`'s share of the current job (all `maximumWorkers + 1` made up front: stealing
    /// workers read any of them while the pool grows).
    private let shares = (0...WorkerPool.maximumWorkers).map { _ in ShareSlot() }
    /// Pieces of the current job that are finished.
    private let done = Atomic<Int>(0)
    private let busy = Atomic<Bool>(false)
    /// The current job's body (set before its ticket is published, cleared after every piece is
    /// done; read only by a worker holding one of its pieces).
    nonisolated(unsafe) private var body: ((_ worker: Int, _ piece: Int) -> Void)?
    /// Only touched by the thread that holds `busy`.
    nonisolated(unsafe) private var helpers: [Helper] = []
    /// The current job's number (wrapped to `epochMask`).
    nonisolated(unsafe) private var epoch = 0

    private final class Helper: Sendable {
        /// True while the helper sleeps (or is about to) on `wake`; whoever resets it signals.
        let sleeping = Atomic<Bool>(false)
        let wake = DispatchSemaphore(value: 0)
    }

    /// Runs `body(worker, piece)` for every piece in `0..<pieces`, each exactly once, on up to
    /// `workers` workers (the calling thread is worker 0; a worker runs one piece at a time), and
    /// returns when all are done.
    func run(pieces: Int, workers: Int, _ body: (_ worker: Int, _ piece: Int) -> Void) {
        precondition(pieces <= Self.maximumPieces && workers <= Self.maximumWorkers,
                     "WorkerPool.run: \(pieces) pieces on \(workers) workers")
        guard workers > 1, pieces > 1 else {
            for piece in 0..<pieces { body(0, piece) }
            return
        }
        guard busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            let next = Atomic<Int>(0)
            withoutActuallyEscaping(body) { body in
                nonisolated(unsafe) let body = body
                DispatchQueue.concurrentPerform(iterations: min(workers, pieces)) { worker in
                    while true {
                        let piece = next.wrappingAdd(1, ordering: .relaxed).oldValue
                        guard piece < pieces else { return }
                        body(worker, piece)
                    }
                }
            }
            return
        }
        defer { busy.store(false, ordering: .releasing) }
        while helpers.count < workers - 1 { startHelper() }
        withoutActuallyEscaping(body) { body in
            self.body = body
            epoch = (epoch + 1) & epochMask
            done.store(0, ordering: .relaxed)
            let job = Ticket(epoch: epoch, workers: workers)
            // The ticket below publishes the shares and `body` to a worker that reads it. Each
            // share publishes `body` too (releasing): a helper descheduled between reading an older
            // ticket and taking a piece, while a multiple of `epochMask + 1` jobs ran, holds a
            // ticket with this job's word, and only the share it takes from orders `body` first.
            for worker in 0..<workers {
                let share = Share(tag: job.word, next: pieces * worker / workers, end: pieces * (worker + 1) / workers)
                shares[worker].word.store(share.word, ordering: .releasing)
            }
            ticket.store(job.word, ordering: .sequentiallyConsistent)
            for helper in helpers.prefix(workers - 1) where helper.sleeping.exchange(false, ordering: .sequentiallyConsistent) {
                helper.wake.signal()
            }
            takePieces(worker: 0, epoch: epoch)
            var spins = 0
            while done.load(ordering: .acquiring) < pieces {
                spins += 1
                if spins % 64 == 0 { sched_yield() }
            }
            self.body = nil
        }
    }

    /// Runs pieces of job `epoch` until none is left (or the job is another one): its own share
    /// from the front, then the others' from the back, starting with the next worker's.
    private func takePieces(worker: Int, epoch: Int) {
        let job = Ticket(ticket.load(ordering: .acquiring))
        guard job.epoch == epoch, worker < job.workers else { return }
        for offset in 0..<job.workers {
            let owner = (worker + offset) % job.workers
            while let piece = take(from: shares[owner].word, job: job.word, front: offset == 0) {
                // Holding a piece of this job: the job cannot end, so `body` is its body.
                body!(worker, piece)
                done.add(1, ordering: .releasing)
            }
        }
    }

    /// Takes the first (`front`) or last piece left in a share of the job tagged `job`; nil when
    /// the share is empty or belongs to another job. Shares only shrink during a job, so an empty
    /// one stays empty (and a finished job's shares are all empty).
    private func take(from word: borrowing Atomic<Int>, job: Int, front: Bool) -> Int? {
        var current = word.load(ordering: .acquiring)
        while true {
            let share = Share(current)
            guard share.tag == job, share.next < share.end else { return nil }
            let taken = front ? Share(tag: job, next: share.next + 1, end: share.end)
                              : Share(tag: job, next: share.next, end: share.end - 1)
            let (exchanged, now) = word.compareExchange(expected: current, desired: taken.word,
                                                        ordering: .acquiringAndReleasing)
            if exchanged { return front ? share.next : share.end - 1 }
            current = now
        }
    }

    /// Starts helper number `helpers.count + 1`, waiting for jobs after the current epoch.
    private func startHelper() {
        let helper = Helper()
        let index = helpers.count + 1
        let seen = Ticket(ticket.load(ordering: .acquiring)).epoch
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
            takePieces(worker: index, epoch: seen)
        }
    }

    /// Spins until the ticket's epoch is no longer `seen`, then sleeps on `wake` until `run`
    /// resets `sleeping` and signals. Returns the new epoch.
    private func waitForJob(_ helper: Helper, after seen: Int) -> Int {
        var start: UInt64 = 0
        var spins = 0
        while true {
            let current = Ticket(ticket.load(ordering: .acquiring)).epoch
            if current != seen { return current }
            spins += 1
            guard spins % 64 == 0 else { continue }
            let now = DispatchTime.now().uptimeNanoseconds
            if start == 0 { start = now }
            if now - start < Self.spinNanoseconds {
                sched_yield()
                continue
            }
            // Sleep. `run` publishes the ticket and then resets `sleeping`; here `sleeping` is
            // set and then the ticket read again (both sequentially consistent), so one of the
            // two sees the other and the job is never missed.
            helper.sleeping.store(true, ordering: .sequentiallyConsistent)
            let again = Ticket(ticket.load(ordering: .sequentiallyConsistent)).epoch
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
