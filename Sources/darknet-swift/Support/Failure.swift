import ArgumentParser
import Darknet
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

func warn(_ message: String) {
    writeToStandardError("darknet-swift: \(message)\n")
}

/// A cfg warning with `--strict`: the unknown key refused (`CfgWarning` words it as a warning).
struct StrictCfgError: Error, CustomStringConvertible {
    var warning: CfgWarning

    var description: String {
        let message = warning.message.hasSuffix(" is ignored") ? String(warning.message.dropLast(11)) : warning.message
        return "\(warning.location): \(message) (--strict)"
    }
}

/// Prints cfg warnings (unknown keys, with their line); with `strict`, the first is an error.
func report(_ warnings: [CfgWarning], strict: Bool) throws {
    if strict, let first = warnings.first { throw StrictCfgError(warning: first) }
    for warning in warnings { warn("\(warning)") }
}
