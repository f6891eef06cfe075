import Foundation

/// The networks (activation buffers) a `Detector` or `Classifier` lends its callers, one per
/// call running at a time, all on the same `PreparedModel`.
///
/// Rules:
/// - a call takes an idle network of its batch size, else makes one; calls running at the
///   same time never share one, so concurrent calls and batches give the answers they give alone;
/// - when a call ends its network goes back to the pool, and while more than `capacity`
///   networks are idle the one of the largest batch (the oldest of that batch) is dropped:
///   a burst of concurrent calls or one large batch does not keep its peak memory forever,
///   while a steady caller of one batch size keeps reusing its network;
/// - `trim()` drops every idle network (a server calls it when its queue empties).
final class NetworkPool: @unchecked Sendable {
    let prepared: PreparedModel
    /// Most networks kept idle (at least 0).
    let capacity: Int
    private let lock = NSLock()
    private var idle: [Network]

    /// A pool holding `first` (made by the caller, so a model too large to run fails when the
    /// detector or classifier is made).
    init(_ prepared: PreparedModel, capacity: Int, first: Network) {
        self.prepared = prepared
        self.capacity = max(0, capacity)
        self.idle = self.capacity > 0 ? [first] : []
    }

    /// Runs `body` with a network of `batch` images no other call is using, then returns it.
    func with<T>(batch: Int, _ body: (Network) throws -> T) throws -> T {
        let pooled: Network? = lock.withLock {
            guard let index = idle.lastIndex(where: { $0.batch == batch }) else { return nil }
            return idle.remove(at: index)
        }
        let network = try pooled ?? Network(prepared, batch: batch)
        defer { give(network) }
        return try body(network)
    }

    private func give(_ network: Network) {
        // The dropped networks are released after the lock, outside other callers' way.
        let dropped: [Network] = lock.withLock {
            idle.append(network)
            var dropped: [Network] = []
            while idle.count > capacity {
                let largest = idle.indices.max { idle[$0].batch < idle[$1].batch || (idle[$0].batch == idle[$1].batch && $0 > $1) }!
                dropped.append(idle.remove(at: largest))
            }
            return dropped
        }
        _ = dropped
    }

    /// Drops every idle network; calls running keep theirs and return them afterwards.
    func trim() {
        let dropped = lock.withLock { () -> [Network] in
            defer { idle = [] }
            return idle
        }
        _ = dropped
    }

    /// The batch sizes of the idle networks, oldest first.
    var idleBatches: [Int] { lock.withLock { idle.map(\.batch) } }
}
