import CommandSupport
import Foundation
import Video

/// Writes whole files the way readers never see half of them and nothing is replaced
/// unasked (`OutputFile`'s rules): into a temporary beside the target, created with `O_EXCL`
/// under a random name (`.NAME.tmp-PID-RANDOM`; a file or link already there is never
/// opened), then moved into place: `rename(2)` when `replacing` (`--force`), else `link(2)`,
/// which fails rather than replace a file that appeared meanwhile (a concurrent run). The
/// temporary is removed on every failure, and on SIGINT, SIGTERM, SIGHUP or SIGXFSZ (a write
/// past `ulimit -f`) while it exists.
enum AtomicFile {
    static func write(_ bytes: [UInt8], to target: RawPath, replacing: Bool, inputs: [RawPath] = []) throws {
        try OutputFile.check(target, replacing: replacing, inputs: inputs)
        var temporary = target
        var fd: Int32 = -1
        var slot: Int?
        for _ in 0..<16 {
            temporary = target.folder.appending(RawPath(bytes: Array(".".utf8) + target.lastComponent.bytes
                + Array(".tmp-\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 36))".utf8)))
            slot = TemporaryFiles.register(temporary)
            fd = temporary.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644) }
            if fd >= 0 || errno != EEXIST { break }
            TemporaryFiles.unregister(slot)
            slot = nil
        }
        defer { TemporaryFiles.unregister(slot) }
        guard fd >= 0 else { throw OutputFile.Error.failed(target, action: "cannot create \(temporary.display)", code: errno) }
        var failure: OutputFile.Error?
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 {
                failure = .failed(target, action: "cannot write \(temporary.display)", code: written < 0 ? errno : ENOSPC)
                break
            }
            offset += written
        }
        if close(fd) != 0 && failure == nil { failure = .failed(target, action: "cannot write \(temporary.display)", code: errno) }
        var renamed = false
        defer { if !renamed { _ = temporary.withCString { unlink($0) } } }
        if let failure { throw failure }
        renamed = try place(temporary, at: target, replacing: replacing, inputs: inputs)
    }

    /// Moves the finished `temporary` onto `target` after checking `target` again: `rename`
    /// when `replacing`, else `place(_:at:)`. Returns whether the temporary's name is gone
    /// (renamed); after a link the caller unlinks it.
    @discardableResult
    static func place(_ temporary: RawPath, at target: RawPath, replacing: Bool, inputs: [RawPath]) throws -> Bool {
        try OutputFile.check(target, replacing: replacing, inputs: inputs)
        guard replacing else {
            try place(temporary, at: target)
            return false
        }
        guard temporary.withCString({ from in target.withCString { to in rename(from, to) } }) == 0 else {
            throw OutputFile.Error.failed(target, action: "cannot rename the temporary file into place", code: errno)
        }
        return true
    }

    /// Gives `temporary`'s file the name `target` unless `target` exists: `link(2)` (the
    /// caller then unlinks the temporary name), or `renameat2(RENAME_NOREPLACE)` on a file
    /// system without hard links (FAT, some FUSE mounts).
    private static func place(_ temporary: RawPath, at target: RawPath) throws {
        let linked = temporary.withCString { from in target.withCString { to in link(from, to) } }
        if linked == 0 { return }
        var code = errno
        if code == EPERM || code == ENOTSUP || code == EOPNOTSUPP || code == EMLINK, let renameNoReplace {
            let renamed = temporary.withCString { from in target.withCString { to in renameNoReplace(AT_FDCWD, from, AT_FDCWD, to, 1) } }
            if renamed == 0 { return }  // the temporary name is gone; the caller's unlink fails harmlessly
            code = errno
        }
        if code == EEXIST { throw OutputFile.Error.exists(target) }
        throw OutputFile.Error.failed(target, action: "cannot move the temporary file into place", code: code)
    }

    /// glibc's `renameat2` (flag 1 is `RENAME_NOREPLACE`), looked up at run time: Swift's
    /// Glibc module does not declare it.
    private static let renameNoReplace: (@convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32)? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "renameat2") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32).self)
    }()
}

/// The temporary files being written, for the signal handler to remove. A signal handler can
/// only reach global memory and async-signal-safe calls, so this is a fixed array of C strings
/// (`strdup`ed before the file is created, freed after it is renamed) and the graceful stop's
/// state: the one process-wide mutable state of the CLI, and it holds no setting.
///
/// The handler (SIGINT, SIGTERM, SIGHUP, SIGXFSZ) kills the `ffmpeg` children and removes the
/// unfinished videos (`VideoProcesses.killAll`), removes these temporaries, then dies of the
/// signal. After `stopGracefully()` (a run reading a video source) the first SIGINT, SIGTERM
/// or SIGHUP instead only stops the sources (`VideoProcesses.stopSources`): the run finishes
/// the frames read, finalises its video and exits with 128 + the signal; a second signal
/// takes the first path.
enum TemporaryFiles {
    static let slots = 8
    nonisolated(unsafe) private static let paths: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let paths = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: slots)
        paths.initialize(repeating: nil, count: slots)
        return paths
    }()
    /// [0]: the graceful stop is armed; [1]: the signal that asked for it (0 while none did);
    /// [2]: the read end of a pipe holding one byte, the token of the graceful stop. Handlers
    /// may run at once on two threads (a signal goes to any thread): the one whose read(2)
    /// takes the byte stops gracefully, any other takes the hard path.
    nonisolated(unsafe) private static let stopState: UnsafeMutablePointer<Int32> = {
        let state = UnsafeMutablePointer<Int32>.allocate(capacity: 3)
        state.initialize(repeating: 0, count: 3)
        var token: [Int32] = [-1, -1]
        if pipe(&token) == 0 {
            var byte: UInt8 = 1
            _ = write(token[1], &byte, 1)
            close(token[1])
            _ = fcntl(token[0], F_SETFL, O_NONBLOCK)
            _ = fcntl(token[0], F_SETFD, FD_CLOEXEC)
            state[2] = token[0]
        }
        return state
    }()
    private static let lock = NSLock()
    private static let handlersInstalled: Void = {
        // Allocated before any handler can run (a handler must not initialise them).
        _ = paths
        _ = stopState
        VideoProcesses.prepare()
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGXFSZ] {
            var action = sigaction()
            #if os(Linux)
            action.__sigaction_handler.sa_handler = removeAndReraise
            #else
            action.__sigaction_u.__sa_handler = removeAndReraise
            #endif
            sigemptyset(&action.sa_mask)
            var previous = sigaction()
            sigaction(signal, nil, &previous)
            // A signal the parent ignored (`trap '' XFSZ`, `nohup`) stays ignored.
            #if os(Linux)
            let handler = previous.__sigaction_handler.sa_handler
            #else
            let handler = previous.__sigaction_u.__sa_handler
            #endif
            if unsafeBitCast(handler, to: Int.self) != unsafeBitCast(SIG_IGN, to: Int.self) { sigaction(signal, &action, nil) }
        }
    }()

    /// Arms the graceful stop (see the type) and installs the handlers; any exit then also
    /// kills the `ffmpeg` children left.
    static func stopGracefully() {
        _ = handlersInstalled
        _ = killAtExit
        stopState[0] = 1
    }

    private static let killAtExit: Void = { atexit { VideoProcesses.killAll() } }()

    /// The signal that stopped the run gracefully, if one did.
    static var stopSignal: Int32? { stopState[1] == 0 ? nil : stopState[1] }

    /// Records `path` (installing the handlers the first time); returns its slot.
    static func register(_ path: RawPath) -> Int? {
        _ = handlersInstalled
        let copy = path.withCString { strdup($0) }
        return lock.withLock {
            for slot in 0..<slots where paths[slot] == nil {
                paths[slot] = copy
                return slot
            }
            free(copy)
            return nil  // more writers than slots: that file is not removed on a signal
        }
    }

    static func unregister(_ slot: Int?) {
        guard let slot else { return }
        lock.withLock {
            let path = paths[slot]
            paths[slot] = nil
            free(path)
        }
    }

    /// The first stop signal of a graceful run stops the sources; otherwise kills the children,
    /// removes every registered temporary, then dies of the same signal (default action).
    private static let removeAndReraise: @convention(c) (Int32) -> Void = { signal in
        let state = TemporaryFiles.stopState
        var token: UInt8 = 0
        if state[0] != 0 && signal != SIGXFSZ && read(state[2], &token, 1) == 1 {
            state[1] = signal
            VideoProcesses.stopSources()
            return
        }
        VideoProcesses.killAll()
        for slot in 0..<TemporaryFiles.slots {
            if let path = TemporaryFiles.paths[slot] { unlink(path) }
        }
        Foundation.signal(signal, SIG_DFL)
        raise(signal)
    }
}
