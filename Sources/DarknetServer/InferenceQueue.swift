import Darknet
import Dispatch
import Foundation
import YOLO

/// One model's bounded queue and its inference thread: the dynamic batching of `serve`.
///
/// Rules:
/// - `submit` refuses a job when `capacity` jobs are waiting (`ServerError.queueFull`, 503):
///   the queue never grows past it, whatever the clients send;
/// - the thread takes the first waiting job, then waits up to `window` from that job's arrival
///   for more, up to `maxBatch`, and runs them in one forward pass (`Detector.forward`); each
///   job is decoded with its own thresholds (`Detector.decodeDetections`), so its
///   answer is the one it gets alone (the engine's batch guarantee);
/// - a job whose task is cancelled (its client went away, its deadline passed) while it waits
///   is removed and never run; one cancelled in a running batch is answered at once
///   (`CancellationError`) and its result dropped when the batch ends;
/// - a job whose deadline has passed when its batch is formed is answered `deadlineExceeded`
///   without being run;
/// - only the jobs bodies are held here (network inputs, never sockets): a slow client holds
///   no place in a batch, since a job is submitted only once its body is read and decoded;
/// - `close()` stops taking jobs (`notReady`), the waiting ones are still run, then the
///   thread ends; `drained` is true once nothing waits or runs;
/// - a continuation is resumed only once `condition` is unlocked. A task's cancellation
///   handler (`cancel`, which takes `condition`) runs holding that task's status lock, and
///   resuming the task needs the same status lock: a resume under `condition` racing a
///   cancellation deadlocks the inference thread and the cancelling thread, then every
///   thread of the cooperative pool that reaches `submit`, and with them the whole server.
package final class InferenceQueue: @unchecked Sendable {
    /// What a job asks of the model.
    package enum Work: Sendable {
        /// Detections with these options (the thresholds and NMS of one request).
        case detect(DetectorOptions)
        /// The detection heads' tensors (`Network.LayerOutput`, the Open Inference Protocol's
        /// outputs) and the detections decoded from them with these options.
        case outputs(DetectorOptions)
        /// A classifier's scores (its last layer, with a class tree's path probabilities).
        case scores
    }

    /// One image's network input, `C×H×W` of `[net]`'s size, and the photo's size.
    package struct Job: Sendable {
        package var input: [Float]
        package var width: Int
        package var height: Int
        package var work: Work

        package init(input: [Float], width: Int, height: Int, work: Work) {
            self.input = input
            self.width = width
            self.height = height
            self.work = work
        }
    }

    package enum Answer: Sendable {
        case detections([Detection])
        case outputs([Network.LayerOutput], detections: [Detection])
        case scores([Float])
    }

    private struct Waiting {
        var id: Int
        var job: Job
        var arrival: UInt64
        var deadline: UInt64
        var continuation: CheckedContinuation<Answer, Error>
    }

    package let name: String
    package let model: ServedModel.Engine
    package let capacity: Int
    package let maxBatch: Int
    /// Nanoseconds the first job of a batch waits for company.
    package let window: UInt64
    private let passDelay: UInt32
    private let metrics: ServerMetrics
    private let condition = NSCondition()
    private var waiting: [Waiting] = []
    /// The continuations of the running batch's jobs not yet answered.
    private var inFlight: [Int: CheckedContinuation<Answer, Error>] = [:]
    /// Ids submitted whose continuation is not yet in `waiting`, and those of them cancelled.
    private var registered = Set<Int>()
    private var cancelledEarly = Set<Int>()
    private var nextId = 0
    private var running = 0
    private var accepting = true
    private var thread: Thread?

    package init(name: String, model: ServedModel.Engine, capacity: Int, maxBatch: Int, windowMilliseconds: Double,
                 passDelayMilliseconds: Int = 0, metrics: ServerMetrics) {
        self.name = name
        self.model = model
        self.capacity = max(1, capacity)
        self.maxBatch = max(1, min(maxBatch, Network.maximumBatch))
        self.window = UInt64(max(0, windowMilliseconds) * 1e6)
        self.passDelay = UInt32(max(0, min(passDelayMilliseconds, 60_000)))
        self.metrics = metrics
        let thread = Thread { [unowned self] in self.loop() }
        thread.name = "inference \(name)"
        thread.stackSize = 8 << 20
        self.thread = thread
        thread.start()
    }

    /// Jobs waiting (not those running).
    package var depth: Int { condition.withLock { waiting.count } }

    /// True once `close()` was called and nothing waits or runs.
    package var drained: Bool { condition.withLock { !accepting && waiting.isEmpty && running == 0 } }

    /// Runs `job` in the next batch and returns its answer. Throws `queueFull`, `notReady`
    /// (closed), `deadlineExceeded` (the deadline, uptime nanoseconds, passed while it
    /// waited) or `CancellationError` (the calling task was cancelled while it waited).
    package func submit(_ job: Job, deadline: UInt64) async throws -> Answer {
        let id = try condition.withLock { () throws(ServerError) -> Int in
            guard accepting else { throw .notReady }
            guard waiting.count + registered.count < capacity else { throw .queueFull(model: name, capacity: capacity) }
            nextId += 1
            registered.insert(nextId)
            return nextId
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Answer, Error>) in
                let cancelled = condition.withLock {
                    registered.remove(id)
                    if cancelledEarly.remove(id) != nil { return true }
                    waiting.append(Waiting(id: id, job: job, arrival: DispatchTime.now().uptimeNanoseconds,
                                           deadline: deadline, continuation: continuation))
                    metrics.queueDepth(model: name, waiting.count)
                    condition.broadcast()
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            cancel(id)
        }
    }

    private func cancel(_ id: Int) {
        let removed: CheckedContinuation<Answer, Error>? = condition.withLock {
            if registered.contains(id) { cancelledEarly.insert(id); return nil }
            if let running = inFlight.removeValue(forKey: id) { return running }
            guard let index = waiting.firstIndex(where: { $0.id == id }) else { return nil }
            defer { metrics.queueDepth(model: name, waiting.count) }
            return waiting.remove(at: index).continuation
        }
        if let removed {
            metrics.dropped(model: name, reason: "cancelled")
            removed.resume(throwing: CancellationError())
        }
    }

    /// Stops accepting; what waits is still run.
    package func close() {
        condition.withLock {
            accepting = false
            condition.broadcast()
        }
    }

    private func loop() {
        while let (batch, expired) = nextBatch() {
            // Answered here, with `condition` unlocked (see the rules above).
            for job in expired {
                metrics.dropped(model: name, reason: "deadline")
                job.continuation.resume(throwing: ServerError.deadlineExceeded(milliseconds: 0))
            }
            if !batch.isEmpty { run(batch) }
            condition.withLock {
                running = 0
                condition.broadcast()
            }
        }
    }

    /// The next batch (blocking) and the jobs taken out of the queue because their deadline
    /// passed, for the caller to answer once `condition` is unlocked; nil once closed and empty.
    private func nextBatch() -> (batch: [Waiting], expired: [Waiting])? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            while waiting.isEmpty {
                if !accepting { return nil }
                condition.wait()
            }
            let close = waiting[0].arrival + window
            while waiting.count < maxBatch, accepting, !waiting.isEmpty, DispatchTime.now().uptimeNanoseconds < close {
                let seconds = Double(close - min(close, DispatchTime.now().uptimeNanoseconds)) / 1e9
                _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
            }
            let now = DispatchTime.now().uptimeNanoseconds
            var batch: [Waiting] = []
            var expired: [Waiting] = []
            while !waiting.isEmpty, batch.count < maxBatch {
                let next = waiting.removeFirst()
                if next.deadline <= now { expired.append(next) } else { batch.append(next) }
            }
            metrics.queueDepth(model: name, waiting.count)
            if !batch.isEmpty || !expired.isEmpty {
                // Counted as running until answered, so that `drained` waits for them too.
                running = batch.count + expired.count
                for job in batch { inFlight[job.id] = job.continuation }
                return (batch, expired)
            }
        }
    }

    private func run(_ batch: [Waiting]) {
        if passDelay > 0 { usleep(passDelay * 1000) }
        metrics.batch(model: name, size: batch.count)
        let answers: [Result<Answer, Error>]
        switch model {
        case .detector(let detector):
            do {
                let outputs = try detector.forward(prepared: batch.map(\.job.input))
                answers = zip(batch, outputs).map { waiting, outputs in
                    Result {
                        let job = waiting.job
                        switch job.work {
                        case .detect(let options):
                            return .detections(try detector.decodeDetections(outputs, width: job.width, height: job.height, options: options))
                        case .outputs(let options):
                            let found = try detector.decodeDetections(outputs, width: job.width, height: job.height, options: options)
                            return .outputs(outputs, detections: found)
                        case .scores: return .outputs(outputs, detections: [])
                        }
                    }
                }
            } catch {
                answers = batch.map { _ in .failure(error) }
            }
        case .classifier(let classifier):
            // A classifier has no batch pass: its jobs run one after another, each alone.
            answers = batch.map { waiting in Result { .scores(try classifier.scores(forInput: waiting.job.input)) } }
        }
        metrics.images(model: name, count: batch.count)
        for (waiting, answer) in zip(batch, answers) {
            guard let continuation = condition.withLock({ inFlight.removeValue(forKey: waiting.id) }) else { continue }
            switch answer {
            case .success(let value): continuation.resume(returning: value)
            case .failure(let error): continuation.resume(throwing: ServerError.inferenceFailed("model \(name): \(error)"))
            }
        }
    }
}
