#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Video

/// A file descriptor that `stream` writes its JSON lines or annotated frames to, with
/// `write(2)` (`DescriptorWriter`: short writes continued, EINTR retried, EAGAIN polled) so a
/// failed write is an error to report, not a crash (`FileHandle.write` traps).
///
/// Rules: EPIPE (the reader went away, with SIGPIPE ignored; otherwise SIGPIPE ends the
/// process as for any Unix filter) is `closed`, which ends the run quietly; any other failure
/// (ENOSPC from `> /dev/full`, EIO) is `failed`.
struct StreamOutput {
    enum Failure: Error, CustomStringConvertible {
        /// The reading end of the pipe was closed.
        case closed(String)
        /// `write(2)` failed with this errno.
        case failed(String, Int32)

        var description: String {
            switch self {
            case .closed(let name): return "cannot write to \(name): the reader closed the pipe"
            case .failed(let name, let code): return "cannot write to \(name): \(String(cString: strerror(code)))"
            }
        }
    }

    let descriptor: Int32
    /// How errors name it: "stdout", "stderr" or the file's path.
    let name: String

    static let standardOutput = StreamOutput(descriptor: 1, name: "stdout")
    static let standardError = StreamOutput(descriptor: 2, name: "stderr")

    init(descriptor: Int32, name: String) {
        self.descriptor = descriptor
        self.name = name
    }

    func write(_ text: String) throws(Failure) {
        try write(Array(text.utf8))
    }

    func write(_ bytes: [UInt8]) throws(Failure) {
        guard let code = DescriptorWriter.write(bytes, to: descriptor) else { return }
        throw code == EPIPE ? .closed(name) : .failed(name, code)
    }
}
