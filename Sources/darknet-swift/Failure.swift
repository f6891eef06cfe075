import ArgumentParser
import Foundation

/// Prints a typed error as one line on stderr and exits non-zero: the only place errors become text.
func fail(_ error: Error) -> ExitCode {
    let message: String
    if let described = error as? CustomStringConvertible {
        message = described.description
    } else {
        message = String(describing: error)
    }
    FileHandle.standardError.write(Data("darknet-swift: error: \(message)\n".utf8))
    return ExitCode(1)
}

func warn(_ message: String) {
    FileHandle.standardError.write(Data("darknet-swift: \(message)\n".utf8))
}
