import Foundation
import Imaging

/// Reading whole files by their raw path, pipes and FIFOs included.
package enum FileBytes {
    /// Largest image, cfg or names file read from a pipe, FIFO or device.
    static let streamLimit = 1 << 30
    /// Largest weights file read from one (yolov4-p6's are 1.1 GB).
    static let weightsStreamLimit = 8 << 30

    /// The bytes of `path` (`-` is stdin). A regular file is read whole; a pipe, FIFO or device
    /// until it ends, failing past `limit` bytes. `check` sees the first bytes read (at least
    /// 8 unless the file is shorter) and may throw to stop early: a stream that is not what was
    /// asked for, such as `/dev/zero`, or a weights file given as the cfg.
    package static func read(_ path: RawPath, limit: Int = streamLimit, check: (([UInt8]) throws -> Void)? = nil) throws -> [UInt8] {
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

    package static func failure(_ path: RawPath, _ code: Int32) -> FileError {
        switch code {
        case ENOENT: return .notFound(path)
        case EISDIR: return .isDirectory(path)
        default: return .unreadable(path, reason: String(cString: strerror(code)))
        }
    }

    /// The bytes of the image file `path` (a stream that does not start like a JPEG or PNG is
    /// refused at once, with the decoder's error).
    package static func imageBytes(_ path: RawPath) throws -> [UInt8] {
        let name = path.display
        return try read(path) { first in
            if !(first.starts(with: [0xFF, 0xD8, 0xFF]) || first.starts(with: [0x89, 0x50, 0x4E, 0x47])) {
                _ = try Image(decoding: first, name: name)  // throws "neither JPEG nor PNG", or "empty"
            }
        }
    }
}
