import CommandSupport
import Foundation

/// A results file written as a run goes (`detect --jsonl FILE`, `valid`'s files): into
/// `.NAME.tmp-PID-N` beside the target, renamed onto it by `finish`, so a reader never sees
/// half of one and a run that dies leaves the previous file whole. The temporary is removed
/// by `abandon`, and on the signals `TemporaryFiles` handles. An existing target is replaced
/// only when `force` (checked at `create`, before any work), and an input is never a target.
final class ResultFile: @unchecked Sendable {
    enum Error: Swift.Error, CustomStringConvertible {
        case exists(String)
        case isInput(String)

        var description: String {
            switch self {
            case .exists(let path): return "\(path) already exists (use --force to overwrite it)"
            case .isInput(let path): return "\(path) is an input; refusing to overwrite it"
            }
        }
    }

    let target: RawPath
    private let temporary: RawPath
    private var fd: Int32
    private let slot: Int?

    /// Creates the temporary for `target` (and the target's folder); throws when the target
    /// exists without `force`, is one of `inputs`, or cannot be created.
    init(_ path: String, force: Bool, inputs: [RawPath] = []) throws {
        let target = RawPath(argument: path)
        self.target = target
        if inputs.contains(where: { $0.standardized == target.standardized }) { throw Error.isInput(target.display) }
        if !force && target.exists { throw Error.exists(target.display) }
        if target.isDirectory { throw FileError.isDirectory(target) }
        try AnnotationTargets.createFolder(target.folder)
        let temporary = target.folder.appending(RawPath(bytes: Array(".".utf8) + target.lastComponent.bytes
            + Array(".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))".utf8)))
        self.temporary = temporary
        slot = TemporaryFiles.register(temporary)
        fd = temporary.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
        if fd < 0 {
            let reason = String(cString: strerror(errno))
            TemporaryFiles.unregister(slot)
            throw FileError.unreadable(target, reason: "cannot create \(temporary.display): \(reason)")
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

    /// Closes the temporary and renames it onto the target.
    func finish() throws(OutputError) {
        guard fd >= 0 else { return }
        defer { TemporaryFiles.unregister(slot) }
        let closed = close(fd)
        fd = -1
        let renamed = closed == 0 ? temporary.withCString { from in target.withCString { to in rename(from, to) } } : -1
        if renamed != 0 {
            let reason = String(cString: strerror(errno))
            _ = temporary.withCString { unlink($0) }
            throw .file(target.display, reason)
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
