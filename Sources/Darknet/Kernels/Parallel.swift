import Dispatch

/// Splits `0..<count` into contiguous chunks run on `GEMM.threads` workers with
/// `DispatchQueue.concurrentPerform`, so Swift-side loops use the same number of cores as
/// OpenBLAS (`--threads`) and never oversubscribe them. Runs `body(0..<count)` inline when
/// one worker is configured or the work is below `minimumWork` (elements), where waking
/// threads costs more than it saves.
enum Parallel {
    static func forChunks(of count: Int, work: Int, minimumWork: Int = 1 << 16,
                          _ body: (Range<Int>) -> Void) {
        let workers = min(GEMM.threads, count)
        guard workers > 1, work >= minimumWork else {
            if count > 0 { body(0..<count) }
            return
        }
        // The chunks are disjoint and `concurrentPerform` returns only when all are done, so the
        // caller's pointers stay valid and no two workers write the same element.
        withoutActuallyEscaping(body) { body in
            nonisolated(unsafe) let chunk = body
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                let start = count * worker / workers
                let end = count * (worker + 1) / workers
                if start < end { chunk(start..<end) }
            }
        }
    }

    /// Like `forChunks`, also passing the worker's index (below `GEMM.threads` and
    /// `maximumWorkers`), so each worker can use its own slice of a scratch buffer.
    static func forWorkers(of count: Int, work: Int, minimumWork: Int = 1 << 16, maximumWorkers: Int = .max,
                           _ body: (_ worker: Int, Range<Int>) -> Void) {
        let workers = min(GEMM.threads, count, maximumWorkers)
        guard workers > 1, work >= minimumWork else {
            if count > 0 { body(0, 0..<count) }
            return
        }
        withoutActuallyEscaping(body) { body in
            nonisolated(unsafe) let chunk = body
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                let start = count * worker / workers
                let end = count * (worker + 1) / workers
                if start < end { chunk(worker, start..<end) }
            }
        }
    }
}
