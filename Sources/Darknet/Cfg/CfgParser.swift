import Foundation

/// Splits Darknet `.cfg` text into sections, as darknet's `read_cfg` does: `[name]` headers,
/// `key=value` options, `#` and `;` comments, blank lines, spaces around `=`, CRLF line
/// ends and a missing final newline all accepted.
public enum CfgParser {
    /// The sections of the cfg at `path`; a file over `maximumBytes` is an error (`ModelLimits.maximumCfgBytes`).
    public static func parse(contentsOf path: String, maximumBytes: Int = ModelLimits().maximumCfgBytes) throws -> [CfgSection] {
        try parseFile(path, maximumBytes: maximumBytes).sections
    }

    /// `parse(contentsOf:)`, with the SHA-256 of the bytes read (`ModelDescription.sourceSHA256`).
    static func parseFile(_ path: String, maximumBytes: Int) throws -> (sections: [CfgSection], sha256: String) {
        let bytes: [UInt8]
        do {
            // A regular file's size is known before reading it: a huge one is refused unread.
            bytes = try TextFile.read(path, limit: maximumBytes)
        } catch {
            switch error {
            case .unreadable(let reason): throw CfgError.unreadable(file: path, reason: reason)
            case .tooLarge(let size, let limit): throw CfgError.tooLarge(file: path, bytes: size, limit: limit)
            }
        }
        let data = Data(bytes)
        guard let text = String(data: data, encoding: .utf8) ?? String(data: data, encoding: .isoLatin1) else {
            throw CfgError.unreadable(file: path, reason: "not text")
        }
        return (try parse(text: text, file: path, maximumBytes: maximumBytes), SHA256.hex(bytes))
    }

    public static func parse(text: String, file: String, maximumBytes: Int = ModelLimits().maximumCfgBytes) throws -> [CfgSection] {
        if text.utf8.count > maximumBytes {
            throw CfgError.tooLarge(file: file, bytes: text.utf8.count, limit: maximumBytes)
        }
        var sections: [CfgSection] = []
        var lineNumber = 0
        // "\r\n" is one Character in Swift: split on both.
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            // darknet strips every whitespace character from a line before reading it.
            let line = String(rawLine.filter { !$0.isWhitespace && $0 != "\0" })
            guard let first = line.first, first != "#", first != ";" else { continue }
            if first == "[" {
                guard line.last == "]", line.count > 2 else {
                    throw CfgError.malformedLine(CfgLocation(file: file, line: lineNumber), text: String(rawLine).trimmingSpaces)
                }
                let name = String(line.dropFirst().dropLast()).lowercased()
                sections.append(CfgSection(name: name, line: lineNumber, file: file))
                continue
            }
            guard let equals = line.firstIndex(of: "="), equals != line.startIndex else {
                throw CfgError.malformedLine(CfgLocation(file: file, line: lineNumber), text: String(rawLine).trimmingSpaces)
            }
            guard !sections.isEmpty else {
                throw CfgError.optionOutsideSection(CfgLocation(file: file, line: lineNumber))
            }
            let key = String(line[..<equals])
            let value = String(line[line.index(after: equals)...])
            sections[sections.count - 1].options.append(.init(key: key, value: value, line: lineNumber))
        }
        return sections
    }
}
