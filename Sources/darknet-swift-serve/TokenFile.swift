import Foundation
import CommandSupport

/// `--token-file`: the bearer token is the file's first line, without surrounding spaces; a
/// missing, unreadable, empty or longer-than-4-KiB file is refused, naming the file.
enum TokenFile {
    struct Error: Swift.Error, CustomStringConvertible {
        var description: String
    }

    static func read(_ path: String) throws -> String {
        let raw = RawPath(argument: path)
        let bytes = try FileBytes.read(raw, limit: 4096)
        let line = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let token = line.trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty else { throw Error(description: "\(raw.display): --token-file is empty (expected the token on its first line)") }
        return token
    }
}
