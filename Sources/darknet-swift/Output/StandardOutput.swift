import Foundation

/// Why a result could not be written to stdout.
enum OutputError: Error, CustomStringConvertible {
    /// The reader went away (EPIPE: `| head` with SIGPIPE ignored): the run ends quietly.
    case closed
    /// Any other failure (a full disk, an I/O error), with `strerror`'s words.
    case failed(String)
    /// A results file (`detect --jsonl FILE`…) could not be written: its path and why.
    case file(String, String)
    /// A results file could not be put in place (`OutputFile`'s rules): the whole message.
    case refused(String)

    var description: String {
        switch self {
        case .closed: return "cannot write to stdout: the reader closed the pipe"
        case .failed(let reason): return "cannot write to stdout: \(reason)"
        case .file(let path, let reason): return "cannot write \(path): \(reason)"
        case .refused(let message): return message
        }
    }
}

/// stdout through write(2), so a failed write is an error the command reports
/// (`FileHandle.write` traps, and `print` loses it in a buffer flushed at exit).
enum StandardOutput {
    static func write(_ text: String) throws(OutputError) {
        try write(Array(text.utf8))
    }

    /// Writes every byte, retrying short writes and interruptions.
    static func write(_ bytes: [UInt8]) throws(OutputError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Foundation.write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw errno == EPIPE ? .closed : .failed(String(cString: strerror(errno)))
            }
            offset += written
        }
    }

    /// True when stdout is a terminal (a result line must then not land after the progress bar).
    static let isTerminal = isatty(STDOUT_FILENO) == 1
}
