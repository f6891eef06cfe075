import ArgumentParser

/// darknet's options are one dash and words (`-thresh 0.3`, `-dont_show`); ArgumentParser reads
/// `-thresh` as the short flags -t -h -r… and `-h` printed the help and exited 0 without
/// detecting. In a native command such an argument is refused before parsing, with the option
/// meant (from `DarknetFlags`, the table `detector` translates with); `detector` takes them
/// as darknet does.
enum DarknetSpelling {
    /// The one-line error for the first single-dash word option in `arguments`, nil when none
    /// or when the command is `detector` (whose words are darknet's).
    static func hint(for arguments: [String]) -> String? {
        if arguments.first == DarknetDetector.configuration.commandName { return nil }
        for argument in arguments {
            if argument == "--" { return nil }
            guard argument.hasPrefix("-"), !argument.hasPrefix("--"), argument.count > 2,
                  let first = argument.dropFirst().first, first.isLetter else { continue }
            let word = String(argument.dropFirst())
            let long = "--" + word.replacingOccurrences(of: "_", with: "-")
            let suggestion = knownOptions(arguments).contains(long) ? "did you mean \(long)?"
                : DarknetFlags.nativeAdvice(for: word).map { "\($0), or darknet-swift detector test|map|valid takes his flags" }
                ?? "darknet-swift's options take two dashes (see --help)"
            return "unknown option '\(argument)' (darknet's spelling): \(suggestion)"
        }
        return nil
    }

    /// The long options of the subcommand named in `arguments` (the root's without one), from its help.
    static func knownOptions(_ arguments: [String]) -> Set<String> {
        Set(options(of: command(in: arguments)).keys)
    }

    /// The subcommand named first in `arguments`, else the root command.
    static func command(in arguments: [String]) -> ParsableCommand.Type {
        DarknetSwift.configuration.subcommands.first { type in
            arguments.contains(type.configuration.commandName ?? type._commandName)
        } ?? DarknetSwift.self
    }

    /// `command`'s long options, each with whether it takes a value (`--names <names>`), from its help.
    static func options(of command: ParsableCommand.Type) -> [String: Bool] {
        let words = command.helpMessage(columns: 1000).split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "," })
        var options: [String: Bool] = [:]
        for (index, word) in words.enumerated() where word.hasPrefix("--") {
            let name = String(word.prefix { $0 != "=" })
            let next = index + 1 < words.count ? words[index + 1] : ""
            options[name] = (options[name] ?? false) || next.hasPrefix("<")
        }
        return options
    }
}
