import Darknet

/// A cfg warning with `--strict`: the unknown key refused (`CfgWarning` words it as a warning).
struct StrictCfgError: Error, CustomStringConvertible {
    var warning: CfgWarning

    var description: String {
        let message = warning.message.hasSuffix(" is ignored") ? String(warning.message.dropLast(11)) : warning.message
        return "\(warning.location): \(message) (--strict)"
    }
}

/// Prints cfg warnings (unknown keys, with their line); with `strict`, the first is an error.
package func report(_ warnings: [CfgWarning], strict: Bool) throws {
    if strict, let first = warnings.first { throw StrictCfgError(warning: first) }
    for warning in warnings { warn("\(warning)") }
}
