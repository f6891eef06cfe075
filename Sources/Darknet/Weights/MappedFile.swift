#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A weights file mapped read-only into memory (`mmap`, private): nothing is copied until a
/// layer's parameters are folded into their own arrays, and `release(upTo:)` hands the pages
/// already folded back to the kernel, so loading never holds the file and the model at once
/// (peak memory ≈ the model plus one layer, not twice the file).
final class MappedFile {
    let path: String
    let bytes: UnsafeRawBufferPointer
    private var released = 0
    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    convenience init(path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw WeightsError.unreadable(file: path, reason: TextFile.reason(errno)) }
        defer { close(fd) }
        try self.init(descriptor: fd, name: path)
    }

    /// Maps the file open on `fd` (the caller keeps and closes it); `name` names it in errors
    /// (a path whose bytes are not UTF-8 is opened by its caller, then mapped here).
    init(descriptor fd: Int32, name path: String) throws {
        self.path = path
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw WeightsError.unreadable(file: path, reason: TextFile.reason(errno)) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw WeightsError.unreadable(file: path, reason: "is a directory") }
        let size = Int(info.st_size)
        guard size > 0 else {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            return
        }
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else {
            throw WeightsError.unreadable(file: path, reason: TextFile.reason(errno))
        }
        _ = madvise(base, size, MADV_SEQUENTIAL)
        bytes = UnsafeRawBufferPointer(start: base, count: size)
    }

    /// Drops the resident pages wholly before `offset` (they are read again from the file if
    /// touched later, so this never changes what the bytes say).
    func release(upTo offset: Int) {
        guard let base = bytes.baseAddress else { return }
        let end = min(offset, bytes.count) / Self.pageSize * Self.pageSize
        guard end > released else { return }
        _ = madvise(UnsafeMutableRawPointer(mutating: base) + released, end - released, MADV_DONTNEED)
        released = end
    }

    /// The file's SHA-256 (what a calibration is checked against), read 8 MB at a time, each
    /// piece's pages dropped once hashed, so hashing never holds the whole file.
    func sha256() -> String {
        guard let base = bytes.baseAddress else { return SHA256.hex([]) }
        var hasher = SHA256()
        let piece = 8 << 20
        for start in stride(from: 0, to: bytes.count, by: piece) {
            let count = min(piece, bytes.count - start)
            hasher.update(UnsafeRawBufferPointer(start: base + start, count: count))
            _ = madvise(UnsafeMutableRawPointer(mutating: base) + start, count / Self.pageSize * Self.pageSize, MADV_DONTNEED)
        }
        return hasher.finish()
    }

    deinit {
        if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
    }
}
