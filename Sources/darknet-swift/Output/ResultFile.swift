import CommandSupport
import Foundation

/// A results file written as a run goes (`detect --jsonl FILE`, `valid`'s files), under
/// `OutputFile`'s rules: into `.NAME.tmp-PID-RANDOM` beside the target (`O_EXCL|O_NOFOLLOW`),
/// moved onto it by `finish` (`rename` with `force`, else `link`, which fails rather than
/// replace a file a concurrent run made), so a reader never sees half of one and a run that
/// dies leaves the previous file whole. The temporary is removed by `abandon`, and on the
/// signals `TemporaryFiles` handles. The target is checked at `create`, before any work: an
/// existing file needs `force`; a device, FIFO, link or folder, or one of the run's inputs,
/// is never replaced.
final class ResultFile: @unchecked Sendable {
    let target: RawPath
    private let temporary: RawPath
    private let force: Bool
    private let inputs: [RawPath]
    private var fd: Int32
    private let slot: Int?

    /// Creates the temporary for `target` (and the target's folder); throws when the target
    /// may not be written (`OutputFile.check`) or the temporary cannot be created.
    init(_ path: String, force: Bool, inputs: [RawPath] = []) throws {
        let target = RawPath(argument: path)
        self.target = target
        self.force = force
        self.inputs = inputs
        try OutputFile.check(target, replacing: force, inputs: inputs)
        try AnnotationTargets.createFolder(target.folder)
        let temporary = target.folder.appending(RawPath(bytes: Array(".".utf8) + target.lastComponent.bytes
            + Array(".tmp-\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 36))".utf8)))
        self.temporary = temporary
        slot = TemporaryFiles.register(temporary)
        fd = temporary.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644) }
        if fd < 0 {
            let code = errno
            TemporaryFiles.unregister(slot)
            throw OutputFile.Error.failed(target, action: "cannot create \(temporary.display)", code: code)
        }
    }

    func write(_ text: String) throws(OutputError) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { throw .file(target.display, String(cString: strerror(errno))) }
            offset += written
        }
    }

    /// Closes the temporary and moves it onto the target (`OutputFile`'s rules, checked again:
    /// the target may have appeared or changed since `init`).
    func finish() throws(OutputError) {
        guard fd >= 0 else { return }
        defer { TemporaryFiles.unregister(slot) }
        let closed = close(fd)
        let code = errno
        fd = -1
        defer { _ = temporary.withCString { unlink($0) } }
        if closed != 0 { throw .file(target.display, String(cString: strerror(code))) }
        do {
            try AtomicFile.place(temporary, at: target, replacing: force, inputs: inputs)
        } catch {
            throw .refused("\(error)")
        }
    }

    /// Removes the temporary: the target keeps what it held.
    func abandon() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
        _ = temporary.withCString { unlink($0) }
        TemporaryFiles.unregister(slot)
    }
}
