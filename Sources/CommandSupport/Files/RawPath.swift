import Foundation

/// A file path as the bytes the system uses: names need not be UTF-8 (a Latin-1 `café.jpg`),
/// and a Swift `String` would replace such bytes, so the file could no longer be opened.
/// `display` is what the CLI prints.
package struct RawPath: Hashable, Sendable, CustomStringConvertible {
    /// The path's bytes, without a terminating NUL.
    package var bytes: [UInt8]

    package init(bytes: [UInt8]) { self.bytes = bytes }

    /// A path typed on the command line: its bytes as given (see `RawArguments`).
    package init(argument: String) { bytes = RawArguments.bytes(of: argument) }

    /// `stdin`, the `-` input.
    package static let standardInput = RawPath(bytes: Array("-".utf8))

    package var isStandardInput: Bool { self == .standardInput }

    /// The path as printed: UTF-8 as is, every byte that is not valid UTF-8 as `\xHH`.
    package var display: String {
        if let text = validUTF8(bytes) { return text }
        var text = ""
        var rest = bytes[...]
        while !rest.isEmpty {
            // The longest valid prefix of up to 4 bytes that decodes as one scalar, else one escaped byte.
            var taken = 0
            for length in (1...min(4, rest.count)).reversed() {
                if let piece = validUTF8(rest.prefix(length)), piece.unicodeScalars.count == 1 {
                    text += piece
                    taken = length
                    break
                }
            }
            if taken == 0 {
                text += "\\x" + String(rest.first!, radix: 16, uppercase: true).leftPadded(to: 2)
                taken = 1
            }
            rest = rest.dropFirst(taken)
        }
        return text
    }

    package var description: String { display }

    /// `self/component` (no slash doubled).
    package func appending(_ component: RawPath) -> RawPath {
        if bytes.isEmpty { return component }
        return RawPath(bytes: bytes.last == UInt8(ascii: "/") ? bytes + component.bytes : bytes + [UInt8(ascii: "/")] + component.bytes)
    }

    /// The last component (`photos/a.jpg` → `a.jpg`).
    package var lastComponent: RawPath {
        let trimmed = bytes.last == UInt8(ascii: "/") ? Array(bytes.dropLast()) : bytes
        guard let slash = trimmed.lastIndex(of: UInt8(ascii: "/")) else { return RawPath(bytes: trimmed) }
        return RawPath(bytes: Array(trimmed[(slash + 1)...]))
    }

    /// The folder part (`photos/a.jpg` → `photos`, `a.jpg` → `.`).
    package var folder: RawPath {
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return RawPath(bytes: Array(".".utf8)) }
        return slash == 0 ? RawPath(bytes: [UInt8(ascii: "/")]) : RawPath(bytes: Array(bytes[..<slash]))
    }

    /// The extension of the last component, lowercased (ASCII); "" without one.
    package var pathExtension: String {
        let name = lastComponent.bytes
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > 0 else { return "" }
        return String(decoding: name[(dot + 1)...], as: UTF8.self).lowercased()
    }

    /// The path with its extension (from the last dot of the last component) removed.
    package var deletingExtension: RawPath {
        let name = lastComponent.bytes
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > 0 else { return self }
        return RawPath(bytes: Array(bytes.dropLast(name.count - dot)))
    }

    /// The path with `suffix` appended to its bytes (`a` + `.png`).
    package func adding(_ suffix: String) -> RawPath { RawPath(bytes: bytes + Array(suffix.utf8)) }

    /// Calls `body` with the path as a NUL-terminated C string.
    package func withCString<T>(_ body: (UnsafePointer<CChar>) throws -> T) rethrows -> T {
        try (bytes + [0]).withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
        }
    }

    /// `stat(2)` (following symlinks), nil when it fails (errno tells why).
    package func status() -> stat? {
        var info = stat()
        return withCString { stat($0, &info) } == 0 ? info : nil
    }

    package var isDirectory: Bool { status().map { $0.st_mode & S_IFMT == S_IFDIR } ?? false }
    package var exists: Bool { status() != nil }

    /// The absolute, `.`/`..`-free form used to compare outputs with inputs (symlinks not resolved).
    package var standardized: RawPath {
        var absolute = bytes
        if absolute.first != UInt8(ascii: "/") {
            absolute = Array(FileManager.default.currentDirectoryPath.utf8) + [UInt8(ascii: "/")] + absolute
        }
        var parts: [ArraySlice<UInt8>] = []
        for part in absolute.split(separator: UInt8(ascii: "/")) {
            if part.elementsEqual(".".utf8) { continue }
            if part.elementsEqual("..".utf8) { _ = parts.popLast(); continue }
            parts.append(part)
        }
        return RawPath(bytes: [UInt8(ascii: "/")] + Array(parts.joined(separator: [UInt8(ascii: "/")])))
    }
}

/// `bytes` as a String when they are valid UTF-8 (decoding repairs invalid bytes, so the
/// round trip differs exactly when they are not), else nil.
package func validUTF8(_ bytes: some Collection<UInt8>) -> String? {
    let text = String(decoding: bytes, as: UTF8.self)
    return text.utf8.elementsEqual(bytes) ? text : nil
}

extension String {
    package func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

/// The command line's arguments as bytes. Swift decodes `argv` as UTF-8 and replaces bytes
/// that are not (`caf\xE9.jpg` becomes `caf\u{FFFD}.jpg`), so a path given that way could not be
/// opened; this maps each such argument back to its bytes.
enum RawArguments {
    private static let replaced: [String: [UInt8]] = {
        var table: [String: [UInt8]] = [:]
        for index in 0..<Int(CommandLine.argc) {
            guard let argument = CommandLine.unsafeArgv[index] else { continue }
            let bytes = Array(UnsafeBufferPointer(start: argument, count: strlen(argument))).map { UInt8(bitPattern: $0) }
            if validUTF8(bytes) == nil {
                table[String(decoding: bytes, as: UTF8.self)] = table[String(decoding: bytes, as: UTF8.self)] ?? bytes
            }
        }
        return table
    }()

    static func bytes(of argument: String) -> [UInt8] { replaced[argument] ?? Array(argument.utf8) }
}
