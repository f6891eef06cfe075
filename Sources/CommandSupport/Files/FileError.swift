import Foundation

/// Why a named file could not be read: one wording for every file the CLI opens (cfg,
/// weights, names, list, images).
package enum FileError: Error, CustomStringConvertible {
    case notFound(RawPath)
    case isDirectory(RawPath)
    case unreadable(RawPath, reason: String)
    /// A pipe, FIFO or device that went on past `limit` bytes.
    case tooLarge(RawPath, limit: Int)
    /// A folder's entry named like an image that is not a file to read: `what` it is (a FIFO,
    /// a device, a symlink to nothing).
    case notAFile(RawPath, what: String)

    package var description: String {
        switch self {
        case .notFound(let path): return "\(path.display): no such file"
        case .isDirectory(let path): return "\(path.display): is a directory"
        case .unreadable(let path, let reason): return "\(path.display): \(reason)"
        case .tooLarge(let path, let limit): return "\(path.display): more than \(limit) bytes from a stream"
        case .notAFile(let path, let what): return "\(path.display): \(what): not read"
        }
    }
}
