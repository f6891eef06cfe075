/// One `detector` command line taken apart as his `run_detector` takes it: darknet's flags
/// (wherever they stand) translated by `DarknetFlags`, the positional words left in order
/// (DATA CFG WEIGHTS [INPUT…]), and native long options (`--force`, `--quiet`) passed on as
/// they are, with their values.
struct DarknetTranslation {
    enum Error: Swift.Error, CustomStringConvertible {
        case unknownFlag(subcommand: String, flag: String)
        case missingValue(subcommand: String, flag: String)
        case refused(subcommand: String, flag: String, advice: String)

        var description: String {
            switch self {
            case .unknownFlag(let subcommand, let flag):
                return "detector \(subcommand): unknown flag '\(flag)' (not one of AlexeyAB's darknet; native options take two dashes)"
            case .missingValue(let subcommand, let flag):
                return "detector \(subcommand): \(flag) needs a value"
            case .refused(let subcommand, let flag, let advice):
                return "detector \(subcommand): \(flag) is not supported: \(advice)"
            }
        }
    }

    let subcommand: String
    /// The words that are not flags or their values, in order.
    private(set) var positionals: [String] = []
    /// The translated flags, then the native options, in the order given.
    private(set) var native: [String] = []
    /// One line for each flag accepted with a note.
    private(set) var notes: [String] = []

    /// `nativeOptions`: the native command's long options, each with whether it takes a value
    /// (`DarknetSpelling.options`), so a native option's value is not taken for a positional.
    init(subcommand: String, words: [String], nativeOptions: [String: Bool]) throws(Error) {
        self.subcommand = subcommand
        var rest = words[...]
        while let word = rest.popFirst() {
            if word == "--" {
                positionals += rest
                break
            }
            if word.hasPrefix("--") {
                native.append(word)
                if nativeOptions[word] == true, !word.contains("="), let value = rest.popFirst() { native.append(value) }
                continue
            }
            guard word.count > 1, word.hasPrefix("-"), let first = word.dropFirst().first, first.isLetter else {
                positionals.append(word)
                continue
            }
            let flag = String(word.dropFirst())
            guard let arity = DarknetFlags.arity[flag] else { throw .unknownFlag(subcommand: subcommand, flag: word) }
            var value: String?
            if arity == .one {
                guard let next = rest.popFirst() else { throw .missingValue(subcommand: subcommand, flag: word) }
                value = next
            }
            switch DarknetFlags.meaning(of: flag, in: subcommand) {
            case .native(let translation):
                native += translation.map { $0 == DarknetFlags.value ? value ?? "" : $0 }
            case .accepted:
                break
            case .noted(let why):
                notes.append("\(word)\(value.map { " " + $0 } ?? "") ignored: \(why)")
            case .refused(let advice):
                throw .refused(subcommand: subcommand, flag: word, advice: advice)
            }
        }
    }
}
