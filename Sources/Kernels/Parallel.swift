/// Runs `0..<count` on up to `threads` workers of the `WorkerPool`, so the Swift-side loops use
/// the same cores as the GEMMs and never oversubscribe them. Runs `body(0..<count)` inline on
/// one thread, or when the work is below `minimumWork` elements, where waking threads costs
/// more than it saves.
///
/// The range is cut into up to `piecesPerWorker` contiguous pieces per worker, and each worker
/// takes the next piece when it is done with one, so a worker on a slower core takes fewer
/// pieces. Which worker runs a piece never changes a result: every caller computes each
/// element the same way whatever the split (the GEMMs' cut is fixed by shape, see `GEMM`).
package enum Parallel {
    /// Pieces per worker: enough for a fast worker to take over a slow one's share, few enough
    /// that taking one (an atomic add) costs nothing next to the work in it.
    static let piecesPerWorker = 8

    package static func forChunks(of count: Int, work: Int, threads: Int, minimumWork: Int = 1 << 16,
                                  _ body: (Range<Int>) -> Void) {
        forWorkers(of: count, work: work, threads: threads, minimumWork: minimumWork) { _, range in body(range) }
    }

    /// Like `forChunks`, also passing the index of the worker running the piece (below
    /// `threads` and `maximumWorkers`), so each worker can use its own slice of a scratch buffer.
    package static func forWorkers(of count: Int, work: Int, threads: Int, minimumWork: Int = 1 << 16,
                                   maximumWorkers: Int = .max, _ body: (_ worker: Int, Range<Int>) -> Void) {
        let workers = min(threads, count, maximumWorkers)
        guard workers > 1, work >= minimumWork else {
            if count > 0 { body(0, 0..<count) }
            return
        }
        let pieces = min(count, workers * piecesPerWorker)
        // The pieces are disjoint and `WorkerPool.run` returns only when all are done, so the
        // caller's pointers stay valid and no two workers write the same element.
        withoutActuallyEscaping(body) { body in
            nonisolated(unsafe) let chunk = body
            WorkerPool.shared.run(pieces: pieces, workers: workers) { worker, piece in
                chunk(worker, count * piece / pieces..<count * (piece + 1) / pieces)
            }
        }
    }
}
