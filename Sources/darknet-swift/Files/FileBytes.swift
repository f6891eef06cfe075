import Foundation
import Imaging

/// Why a named file could not be read: one wording for every file the CLI opens (cfg,
/// weights, names, list, images).
enum FileError: Error, CustomStringConvertible {
    case notFound(RawPath)
    case isDirectory(RawPath)
    case unreadable(RawPath, reason: String)
    /// A pipe, FIFO or device that went on past `limit` bytes.
    case tooLarge(RawPath, limit: Int)

    var description: String {
        switch self {
        case .notFound(let path): return "\(path.display): no such file"
        case .isDirectory(let path): return "\(path.display): is a directory"
        case .unreadable(let path, let reason): return "\(path.display): \(reason)"
        case .tooLarge(let path, let limit): return "\(path.display): more than \(limit) bytes from a stream"
        }
    }
}

/// Reading whole files by their raw path, pipes and FIFOs included.
enum FileBytes {
    /// Largest image, cfg or names file read from a pipe, FIFO or device.
    static let streamLimit = 1 << 30
    /// Largest weights file read from one (yolov4-p6's are 1.1 GB).
    static let weightsStreamLimit = 8 << 30

    /// The bytes of `path` (`-` is stdin). A regular file is read whole; a pipe, FIFO or device
    /// until it ends, failing past `limit` bytes. `check` sees the first bytes read (at least
    /// 8 unless the file is shorter) and may throw to stop early: a stream that is not what was
    /// asked for, such as `/dev/zero`, or a weights file given as the cfg.
    static func read(_ path: RawPath, limit: Int = streamLimit, check: (([UInt8]) throws -> Void)? = nil) throws -> [UInt8] {
        let fd: Int32 = path.isStandardInput ? dup(STDIN_FILENO) : path.withCString { open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw failure(path, errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure(path, errno) }
        if info.st_mode & S_IFMT == S_IFDIR { throw FileError.isDirectory(path) }
        let regular = info.st_mode & S_IFMT == S_IFREG
        var bytes: [UInt8] = []
        if regular { bytes.reserveCapacity(Int(info.st_size)) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var checked = check == nil
        while true {
            let count = chunk.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(path, errno)
            }
            if count == 0 {
                if !checked { try check?(bytes) }
                break
            }
            bytes += chunk.prefix(count)
            if !checked && bytes.count >= 8 {
                checked = true
                try check?(bytes)
            }
            if !regular && bytes.count > limit { throw FileError.tooLarge(path, limit: limit) }
        }
        return bytes
    }

    static func failure(_ path: RawPath, _ code: Int32) -> FileError {
        switch code {
        case ENOENT: return .notFound(path)
        case EISDIR: return .isDirectory(path)
        default: return .unreadable(path, reason: String(cString: strerror(code)))
        }
    }

    /// The bytes of the image file `path` (a stream that does not start like a JPEG or PNG is
    /// refused at once, with the decoder's error).
    static func imageBytes(_ path: RawPath) throws -> [UInt8] {
        let name = path.display
        return try read(path) { first in
            if !(first.starts(with: [0xFF, 0xD8, 0xFF]) || first.starts(with: [0x89, 0x50, 0x4E, 0x47])) {
                _ = try Image(decoding: first, name: name)  // throws "neither JPEG nor PNG", or "empty"
            }
        }
    }
}

/// Lists folders for `--recursive` without looping: each folder is entered once, known by
/// its device and inode, so symlinks to `.` or `..` add nothing.
struct FolderWalker {
    private var visited = Set<FileIdentity>()

    struct FileIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// Image files under `folder`, as paths relative to it, byte-wise sorted; hidden entries
    /// ignored; `skipped` counts the other files. Nil when `folder` was already visited.
    /// Sub-folders that cannot be listed are added to `problems`.
    mutating func images(in folder: RawPath, recursive: Bool, skipped: inout Int, problems: inout [FileError]) throws -> [RawPath]? {
        guard let info = folder.status() else { throw FileBytes.failure(folder, errno) }
        guard visited.insert(FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))).inserted else { return nil }
        var found: [RawPath] = []
        for name in try Self.entries(of: folder) where name.bytes.first != UInt8(ascii: ".") {
            let full = folder.appending(name)
            guard let entry = full.status() else { continue }  // a dangling symlink
            if entry.st_mode & S_IFMT == S_IFDIR {
                guard recursive else { continue }
                do {
                    found += try images(in: full, recursive: true, skipped: &skipped, problems: &problems)?.map { name.appending($0) } ?? []
                } catch {
                    problems.append(error as? FileError ?? .unreadable(full, reason: "\(error)"))
                }
            } else if InputSource.imageExtensions.contains(name.pathExtension) {
                found.append(name)
            } else {
                skipped += 1
            }
        }
        return found.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
    }

    /// The names in `folder` (readdir: their bytes, UTF-8 or not).
    static func entries(of folder: RawPath) throws -> [RawPath] {
        guard let directory = folder.withCString({ opendir($0) }) else { throw FileBytes.failure(folder, errno) }
        defer { closedir(directory) }
        var names: [RawPath] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name != [UInt8(ascii: ".")] && name != [UInt8(ascii: "."), UInt8(ascii: ".")] { names.append(RawPath(bytes: name)) }
        }
        return names
    }
}
