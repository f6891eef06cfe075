import CommandSupport
import Foundation

/// The rules every file the CLI writes follows (`AtomicFile` for whole files, `open` for a file
/// written line by line), so that no run destroys what it was not asked to:
/// - an existing target is replaced only with `--force` (`replacing`), and the check is the
///   write itself (`link(2)` of the finished temporary, `O_EXCL`), so two runs racing for one
///   name never both win;
/// - a target that exists and is not a regular file (a device, a FIFO, a socket, a folder, a
///   symlink) is never replaced, even with `--force`: as root in a container `/dev/null` is
///   one `rename` away;
/// - a target that is one of the run's inputs (the same device and inode as an input file or
///   as standard input) is never written, even with `--force`: `stream --jsonl F --force < F`
///   would empty its own input.
enum OutputFile {
    enum Error: Swift.Error, CustomStringConvertible {
        case exists(RawPath)
        case notRegular(RawPath, kind: String)
        case isInput(RawPath)
        case failed(RawPath, action: String, code: Int32)

        var description: String {
            switch self {
            case .exists(let path): return "\(path.display) already exists (use --force to overwrite it)"
            case .notRegular(let path, let kind):
                return "\(path.display) is \(kind), not a regular file: refusing to replace it (even with --force)"
            case .isInput(let path): return "\(path.display) is an input of this run: refusing to overwrite it (even with --force)"
            case .failed(let path, let action, let code): return "\(path.display): \(action): \(String(cString: strerror(code)))"
            }
        }
    }

    /// Throws unless `target` may be written: absent, or (with `replacing`) a regular file that
    /// is none of `inputs` nor standard input. `lstat` is used: a symlink is not followed.
    static func check(_ target: RawPath, replacing: Bool, inputs: [RawPath]) throws {
        var info = stat()
        guard target.withCString({ lstat($0, &info) }) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFREG else { throw Error.notRegular(target, kind: kind(info.st_mode)) }
        if isInput(info, inputs: inputs) { throw Error.isInput(target) }
        if !replacing { throw Error.exists(target) }
    }

    /// Whether the file `info` describes is one of `inputs` or standard input (same device and inode).
    static func isInput(_ info: stat, inputs: [RawPath]) -> Bool {
        var identities: [stat] = inputs.compactMap { $0.status() }
        var standardInput = stat()
        if fstat(STDIN_FILENO, &standardInput) == 0 { identities.append(standardInput) }
        return identities.contains { $0.st_dev == info.st_dev && $0.st_ino == info.st_ino }
    }

    /// Opens `target` to be written from its start, line by line (`stream --jsonl`): created
    /// with `O_EXCL`, or with `replacing` an existing regular file is truncated (after the
    /// checks above, made on the opened descriptor) and an existing FIFO or character device
    /// (`/dev/null`, a named pipe) is written into, never replaced nor truncated.
    static func open(_ target: RawPath, replacing: Bool, inputs: [RawPath]) throws -> Int32 {
        let created = target.withCString { Foundation.open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
        if created >= 0 { return created }
        guard errno == EEXIST else { throw Error.failed(target, action: "cannot create it", code: errno) }
        guard replacing else { throw Error.exists(target) }
        var link = stat()
        if target.withCString({ lstat($0, &link) }) == 0, link.st_mode & S_IFMT == S_IFLNK {
            throw Error.notRegular(target, kind: kind(link.st_mode))
        }
        // O_NONBLOCK: opening a FIFO with no reader fails (ENXIO) instead of waiting forever.
        let fd = target.withCString { Foundation.open($0, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { throw Error.failed(target, action: "cannot open it", code: errno) }
        var info = stat()
        fstat(fd, &info)
        let type = info.st_mode & S_IFMT
        let failure: Swift.Error?
        if isInput(info, inputs: inputs) {
            failure = Error.isInput(target)
        } else if type == S_IFREG {
            failure = ftruncate(fd, 0) == 0 ? nil : Error.failed(target, action: "cannot truncate it", code: errno)
        } else if type == S_IFIFO || type == S_IFCHR {
            let flags = fcntl(fd, F_GETFL)
            failure = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 ? nil : Error.failed(target, action: "cannot open it", code: errno)
        } else {
            failure = Error.notRegular(target, kind: kind(info.st_mode))
        }
        if let failure {
            close(fd)
            throw failure
        }
        return fd
    }

    /// "a character device", "a FIFO"…: what a file that is not a regular file is.
    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFDIR: return "a folder"
        case S_IFLNK: return "a symbolic link"
        default: return "a special file"
        }
    }
}
