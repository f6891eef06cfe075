import ArgumentParser
import CommandSupport
import Foundation

/// Exit statuses, the same for every command: 0 all done, 1 some inputs failed (or stdout
/// could not be written), 2 usage or model error; 141 (as if SIGPIPE had ended the run) when
/// the reader of stdout went away.
enum Status {
    static let inputsFailed = ExitCode(1)
    static let usage = ExitCode(2)
    static let closedPipe = ExitCode(141)
}

/// Prints a typed error as one line on stderr and exits non-zero: the only place errors become text.
func fail(_ error: Error) -> ExitCode {
    let message = String(describing: error)  // every error of ours is CustomStringConvertible
    writeToStandardError("darknet-swift: error: \(message)\n")
    return ExitCode(1)
}

/// The exit status of a command that stopped on `error`, after printing it: an `ExitCode`
/// passes through, a closed stdout ends quietly, another failed write is 1, anything else
/// (a usage or model error: bad option value, missing or malformed cfg, weights or names) is 2.
func conclude(_ error: Error) -> ExitCode {
    switch error {
    case let code as ExitCode: return code
    case OutputError.closed: return Status.closedPipe
    case let output as OutputError: return fail(output)
    default:
        _ = fail(error)
        return Status.usage
    }
}
