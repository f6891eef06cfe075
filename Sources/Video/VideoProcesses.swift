import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `ffmpeg` children this module started and the videos it is writing, for a signal
/// handler: an app (or the CLI) that is interrupted stops its sources, or kills every child
/// and removes the unfinished videos, from its own SIGINT / SIGTERM handler.
///
/// A signal handler can only reach global memory and async-signal-safe calls, so this is a
/// fixed table of pids and of C strings (the temporary names of videos being written),
/// allocated by `prepare()` before any handler may run: the module's one process-wide mutable
/// state, and it holds no setting. Children beyond `capacity` are not listed (nothing here
/// could kill them on a signal); each `VideoSource` and `VideoWriter` has one at a time.
public enum VideoProcesses {
    /// What a child does: a decoding child is stopped by `stopSources`; every child is killed by `killAll`.
    public enum Role: Int32, Sendable {
        case decoder = 1, encoder = 2, other = 3
    }

    public static let capacity = 16

    private struct Table {
        let pids = UnsafeMutablePointer<pid_t>.allocate(capacity: capacity)
        let roles = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
        let temporaries = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
        let stopRequested = UnsafeMutablePointer<Int32>.allocate(capacity: 1)

        init() {
            pids.initialize(repeating: 0, count: capacity)
            roles.initialize(repeating: 0, count: capacity)
            temporaries.initialize(repeating: nil, count: capacity)
            stopRequested.initialize(to: 0)
        }
    }

    nonisolated(unsafe) private static let table = Table()
    private static let lock = NSLock()

    /// Allocates the table: call it before installing a handler that calls `stopSources` or
    /// `killAll` (the first use of a Swift global runs its initialiser, which a handler must not).
    public static func prepare() { _ = table }

    /// Set once `stopSources` ran: a decoder that ends then has been stopped, not failed.
    public static var stopRequested: Bool { table.stopRequested.pointee != 0 }

    /// Async-signal-safe. Sends SIGTERM to every decoding `ffmpeg`: each `VideoSource` then
    /// ends as if its source had ended (`next()` returns nil), so the frames read so far can be
    /// finished and the videos being written finalised.
    public static func stopSources() {
        table.stopRequested.pointee = 1
        for slot in 0..<capacity where table.roles[slot] == Role.decoder.rawValue {
            let pid = table.pids[slot]
            if pid > 0 { kill(pid, SIGTERM) }
        }
    }

    /// Async-signal-safe. Kills every listed child (SIGKILL) and waits for it, then removes
    /// every unfinished video (its temporary name), so nothing is left running or half written.
    public static func killAll() {
        for slot in 0..<capacity {
            let pid = table.pids[slot]
            if pid > 0 { kill(pid, SIGKILL) }
        }
        for slot in 0..<capacity {
            let pid = table.pids[slot]
            var status: Int32 = 0
            if pid > 0 { while waitpid(pid, &status, 0) < 0 && errno == EINTR {} }
        }
        for slot in 0..<capacity {
            if let path = table.temporaries[slot] { unlink(path) }
        }
    }

    static func register(pid: pid_t, role: Role) -> Int? {
        lock.withLock {
            for slot in 0..<capacity where table.pids[slot] == 0 {
                table.roles[slot] = role.rawValue
                table.pids[slot] = pid
                return slot
            }
            return nil
        }
    }

    static func unregister(_ slot: Int?) {
        guard let slot else { return }
        lock.withLock {
            table.pids[slot] = 0
            table.roles[slot] = 0
        }
    }

    /// Lists the temporary name of a video being written; returns its slot.
    static func register(temporary path: String) -> Int? {
        let copy = strdup(path)
        return lock.withLock {
            for slot in 0..<capacity where table.temporaries[slot] == nil {
                table.temporaries[slot] = copy
                return slot
            }
            free(copy)
            return nil
        }
    }

    static func unregister(temporary slot: Int?) {
        guard let slot else { return }
        lock.withLock {
            let path = table.temporaries[slot]
            table.temporaries[slot] = nil
            free(path)
        }
    }
}
