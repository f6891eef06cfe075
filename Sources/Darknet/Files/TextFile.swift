import Foundation

/// Reads the small text files a model comes with (cfg, names, `.data`, class trees) in the
/// project's words: a missing file is "no such file", not Foundation's sentence. A regular file
/// larger than `limit` is refused before it is read; a pipe, FIFO or device is read only up to
/// `limit + 1` bytes, so `/dev/zero` given as a names file ends with "too large", not a full memory.
enum TextFile {
    enum Failure: Error, Equatable {
        /// The system's reason, worded as the CLI words it (`no such file`, `permission denied`, `is a directory`).
        case unreadable(reason: String)
        /// More than `limit` bytes (`bytes` is the file's size, or `limit + 1` for a stream).
        case tooLarge(bytes: Int, limit: Int)
    }

    /// The bytes of the file at `path`, at most `limit` of them.
    static func read(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadable(reason: reason(errno)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadable(reason: reason(errno)) }
        let type = info.st_mode & S_IFMT
        if type == S_IFDIR { throw .unreadable(reason: "is a directory") }
        if type == S_IFREG, Int(info.st_size) > limit { throw .tooLarge(bytes: Int(info.st_size), limit: limit) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(reason: reason(errno))
            }
            if count == 0 { break }
            bytes += chunk[0..<count]
            if bytes.count > limit { throw .tooLarge(bytes: type == S_IFREG ? bytes.count : limit + 1, limit: limit) }
        }
        return bytes
    }

    /// `errno` in the words every file error of the project uses.
    static func reason(_ code: Int32) -> String {
        switch code {
        case ENOENT: "no such file"
        case EACCES, EPERM: "permission denied"
        case EISDIR: "is a directory"
        case ENOTDIR: "a folder in the path is a file"
        case ELOOP: "too many symbolic links"
        case ENAMETOOLONG: "the name is too long"
        default: String(cString: strerror(code)).lowercased()
        }
    }
}
