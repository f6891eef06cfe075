/// Errors of the CLI's own (not the engine's), one line each.
enum CLIError: Error, CustomStringConvertible {
    case unreadable(String, String)
    case usage(String)

    var description: String {
        switch self {
        case .unreadable(let path, let reason): return "\(path): \(reason)"
        case .usage(let message): return message
        }
    }
}
