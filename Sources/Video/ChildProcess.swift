import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process (an `ffmpeg`) with pipes to its stdin, stdout and stderr, as `posix_spawn`
/// starts it.
///
/// Rules:
/// - The child runs in a process group of its own, so a Ctrl-C at the terminal reaches this
///   process only, which decides what happens to its children (see `VideoProcesses`).
/// - SIGPIPE, SIGINT and SIGTERM are at their default action and no signal is blocked in the
///   child, whatever this process does with them.
/// - Each pipe end is close-on-exec here, so no other child inherits it.
/// - The child is listed in `VideoProcesses` from its start until it has exited: it is
///   waited for with `waitid(WNOWAIT)` (it stays a zombie, so its pid cannot be reused), taken
///   off the list, then reaped. A signal handler that kills the listed pids can thus never
///   hit another process.
final class ChildProcess: @unchecked Sendable {
    /// How the child ended: its exit status, or the signal that killed it.
    enum Ending: Equatable {
        case exited(Int32)
        case signaled(Int32)
    }

    let pid: pid_t
    /// Our ends of its pipes (-1 when not piped); closed by `closeStandardInput` / at the end.
    private(set) var standardInput: Int32
    let standardOutput: Int32
    let standardError: Int32
    private let slot: Int?
    private let lock = NSLock()
    private var ending: Ending?

    /// Starts `program` with `arguments`; `pipeInput` gives it a pipe on stdin (else /dev/null).
    init(_ program: String, _ arguments: [String], pipeInput: Bool, role: VideoProcesses.Role) throws(VideoError) {
        var input: [Int32] = [-1, -1], output: [Int32] = [-1, -1], errors: [Int32] = [-1, -1]
        func closeAll() { for fd in input + output + errors where fd >= 0 { close(fd) } }
        let devNull = pipeInput ? -1 : open("/dev/null", O_RDONLY | O_CLOEXEC)
        // pipe2(O_CLOEXEC) is not in the Swift overlay: the pipes are made and marked under a
        // lock the spawns here also take, so no child of this module inherits another's pipe.
        Self.spawnLock.lock()
        defer { Self.spawnLock.unlock() }
        guard (!pipeInput || Self.closeOnExecPipe(&input)), Self.closeOnExecPipe(&output), Self.closeOnExecPipe(&errors) else {
            let code = errno
            closeAll()
            if devNull >= 0 { close(devNull) }
            throw .spawnFailed(program: program, code: code)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeInput ? input[0] : devNull, 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        posix_spawnattr_setpgroup(&attributes, 0)
        var defaults = sigset_t(), mask = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM] { sigaddset(&defaults, signal) }
        sigemptyset(&mask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &mask)
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, program, &actions, &attributes, argv, environ)
        if devNull >= 0 { close(devNull) }
        for fd in [input[0], output[1], errors[1]] where fd >= 0 { close(fd) }
        guard status == 0 else {
            for fd in [input[1], output[0], errors[0]] where fd >= 0 { close(fd) }
            throw .spawnFailed(program: program, code: status)
        }
        self.pid = pid
        slot = VideoProcesses.register(pid: pid, role: role)
        standardInput = input[1]
        standardOutput = output[0]
        standardError = errors[0]
    }

    private static let spawnLock = NSLock()

    private static func closeOnExecPipe(_ fds: inout [Int32]) -> Bool {
        guard pipe(&fds) == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }

    deinit {
        if ending == nil { _ = terminate(grace: 0) }
        for fd in [standardInput, standardOutput, standardError] where fd >= 0 { close(fd) }
    }

    /// Closes our end of its stdin: the child reads the end of its input.
    func closeStandardInput() {
        lock.withLock {
            if standardInput >= 0 { close(standardInput) }
            standardInput = -1
        }
    }

    /// Waits for the child to end (once; later calls return the same ending).
    func wait() -> Ending {
        if let ending = lock.withLock({ ending }) { return ending }
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        return reap()
    }

    /// The ending if the child has ended, without waiting.
    func poll() -> Ending? {
        if let ending = lock.withLock({ ending }) { return ending }
        var info = siginfo_t()
        guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT | WNOHANG) == 0, Self.childPid(info) == pid else { return nil }
        return reap()
    }

    /// Sends SIGTERM, waits up to `grace` seconds for the child to end, then SIGKILL; returns how it ended.
    func terminate(grace: Double) -> Ending {
        if let ending = poll() { return ending }
        signal(SIGTERM)
        let deadline = Date().addingTimeInterval(grace)
        while Date() < deadline {
            if let ending = poll() { return ending }
            usleep(5_000)
        }
        if poll() == nil { signal(SIGKILL) }
        return wait()
    }

    /// Sends `signal` unless the child has been reaped (under the lock `reap` holds, so the
    /// pid cannot be another process's by then).
    private func signal(_ signal: Int32) {
        lock.withLock {
            if ending == nil { _ = kill(pid, signal) }
        }
    }

    /// The pid `waitid` filled in (0 when no child had ended, with WNOHANG).
    private static func childPid(_ info: siginfo_t) -> pid_t {
        #if os(Linux)
        return info._sifields._sigchld.si_pid
        #else
        return info.si_pid
        #endif
    }

    /// Takes the exited child off `VideoProcesses`' list, then reaps it.
    private func reap() -> Ending {
        lock.lock()
        defer { lock.unlock() }
        if let ending { return ending }
        VideoProcesses.unregister(slot)
        var status: Int32 = 0
        var result: pid_t
        repeat { result = waitpid(pid, &status, 0) } while result < 0 && errno == EINTR
        // ECHILD: a signal handler reaped it (VideoProcesses.killAll); it was killed.
        let value: Ending = result < 0 ? .signaled(SIGKILL)
            : (status & 0x7F) == 0 ? .exited((status >> 8) & 0xFF) : .signaled(status & 0x7F)
        ending = value
        return value
    }

    /// Runs `program` to its end and returns its stdout (for `ffmpeg -version`).
    static func output(of program: String, _ arguments: [String]) throws -> String {
        let child = try ChildProcess(program, arguments, pipeInput: false, role: .other)
        let drained = DispatchSemaphore(value: 0)
        Thread.detachNewThread {  // never let a full stderr pipe block it
            _ = readAll(child.standardError)
            drained.signal()
        }
        let bytes = readAll(child.standardOutput)
        drained.wait()
        let ending = child.wait()
        guard ending == .exited(0) else { throw VideoError.ffmpegUnusable(path: program, reason: "it ended with \(ending)") }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads `fd` to its end.
    static func readAll(_ fd: Int32) -> [UInt8] {
        var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return bytes }
            bytes += chunk[..<count]
        }
    }
}
