/// What the engine does with every cfg section and option, derived from each layer type's
/// `keys` (every key it knows), `honouredKeys` and `rejectedKeys` (`LayerType`) — the source of truth for the
/// README's support table (`SupportTableTests` checks the rejected keys really are errors and
/// that the committed table, `Darknet.docc/SupportedSections.md`, equals `markdown()`).
///
/// A key a section does not know is a warning with its line (`ModelDescription.warnings`);
/// a section not listed here is `CfgError.unknownSection`.
public enum SupportTable {
    public enum Status: String, Sendable, CaseIterable {
        /// Read and implemented.
        case supported
        /// Read by darknet for training only; no effect at inference.
        case ignored = "ignored (training only)"
        /// A typed error naming the key and its line unless it has darknet's default value.
        case rejected = "error unless default"
    }

    public struct Section: Sendable {
        /// The cfg section name and its aliases (`convolutional`, `conv`).
        public var names: [String]
        public var keys: [(key: String, status: Status)]
        /// For `rejected` keys: a value that triggers the error (tests use it).
        public var rejectingValues: [String: String]

        init(_ names: [String], keys: Set<String>, honoured: Set<String>, rejected: [String: String] = [:]) {
            self.names = names
            self.keys = keys.sorted().map { key in
                (key, rejected[key] != nil ? .rejected : honoured.contains(key) ? .supported : .ignored)
            }
            self.rejectingValues = rejected
        }
    }

    /// Every section the engine reads: `[net]`, then each layer type of `LayerRegistry`.
    public static let sections: [Section] = [
        Section(["net", "network"], keys: NetConfig.knownKeys, honoured: ["width", "height", "channels", "letter_box"]),
    ] + LayerRegistry.types.map { type in
        Section(type.sectionNames, keys: type.keys, honoured: type.honouredKeys, rejected: type.rejectedKeys)
    }

    /// Sections of pjreddie's or AlexeyAB's darknet this engine does not run (an error naming
    /// the section and its line). Remove a name when its layer file lands.
    public static let unsupportedSections: [String] = [
        "conv_lstm", "deconv", "deconvolutional", "gru", "history", "iseg", "l2norm",
        "logistic", "lrn", "lstm", "normalization", "rnn",
    ]

    /// The table as Markdown: one row per section, options grouped by status.
    public static func markdown() -> String {
        var lines = ["| section | supported options | ignored (training only) | error unless default |", "|---|---|---|---|"]
        for section in sections {
            let names = section.names.map { "`[\($0)]`" }.joined(separator: " ")
            let columns = Status.allCases.map { status in
                let keys = section.keys.filter { $0.status == status }.map { "`\($0.key)`" }
                return keys.isEmpty ? "—" : keys.joined(separator: " ")
            }
            lines.append("| \(names) | " + columns.joined(separator: " | ") + " |")
        }
        lines.append("")
        lines.append("Not supported (an error naming the section and its line): "
                     + unsupportedSections.map { "`[\($0)]`" }.joined(separator: " ") + ".")
        return lines.joined(separator: "\n") + "\n"
    }
}
