import Foundation

/// Writes `text` to stderr with write(2); failures are ignored, as there is nowhere left to
/// report them (and `FileHandle.write` would trap on a full stderr).
package func writeToStandardError(_ text: String) {
    var text = text
    text.withUTF8 { bytes in
        var offset = 0
        while offset < bytes.count {
            let written = write(STDERR_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }
}

/// Prints `message` on stderr as one line, after the program's name.
package func warn(_ message: String) {
    writeToStandardError("darknet-swift: \(message)\n")
}
