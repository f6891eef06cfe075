import ArgumentParser
import Darknet
import Foundation

/// Prints a typed error as one line on stderr and exits non-zero: the only place errors become text.
func fail(_ error: Error) -> ExitCode {
    let message = String(describing: error)  // every error of ours is CustomStringConvertible
    FileHandle.standardError.write(Data("darknet-swift: error: \(message)\n".utf8))
    return ExitCode(1)
}

func warn(_ message: String) {
    FileHandle.standardError.write(Data("darknet-swift: \(message)\n".utf8))
}

/// Prints cfg warnings (unknown keys, with their line); with `strict`, they are errors.
func report(_ warnings: [CfgWarning], strict: Bool) throws {
    for warning in warnings {
        FileHandle.standardError.write(Data("darknet-swift: \(strict ? "error: " : "")\(warning)\n".utf8))
    }
    if strict && !warnings.isEmpty { throw ExitCode(1) }
}
