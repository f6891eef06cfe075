import Foundation

/// Reads `images[].file_name` and `images[].id` from a COCO annotations file without building
/// the rest of it: everything else (the `annotations` array is most of a 150 MB
/// `instances_*.json`) is stepped over byte by byte, so memory is the file plus the table,
/// not the ~20× a parsed JSON object tree takes. Strings and numbers that are kept are
/// decoded by `JSONSerialization` one token at a time (escapes included).
struct COCOImagesScanner {
    enum Error: Swift.Error, CustomStringConvertible {
        case syntax(offset: Int, expected: String)
        case noImages

        var description: String {
            switch self {
            case .syntax(let offset, let expected): return "byte \(offset): expected \(expected)"
            case .noImages: return "not a COCO annotations file (no \"images\" array)"
            }
        }
    }

    private let bytes: [UInt8]
    private var offset = 0

    /// `file_name` → `id` of every image of the annotations file `bytes`.
    static func images(in bytes: [UInt8]) throws -> [String: Int] {
        var scanner = COCOImagesScanner(bytes: bytes)
        return try scanner.topLevel()
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private mutating func topLevel() throws -> [String: Int] {
        var table: [String: Int]?
        try expect(UInt8(ascii: "{"), "{")
        try members { scanner, key in
            if key == "images" { table = try scanner.imageArray() } else { try scanner.skipValue() }
        }
        guard let table else { throw Error.noImages }
        return table
    }

    private mutating func imageArray() throws -> [String: Int] {
        var table: [String: Int] = [:]
        try expect(UInt8(ascii: "["), "the \"images\" array")
        skipSpace()
        if peek == UInt8(ascii: "]") { offset += 1; return table }
        while true {
            skipSpace()
            var name: String?, id: Int?
            try expect(UInt8(ascii: "{"), "an image object")
            try members { scanner, key in
                switch key {
                case "file_name": name = try scanner.decoded(scanner.scalarToken()) as? String
                case "id": id = try scanner.decoded(scanner.scalarToken()) as? Int
                default: try scanner.skipValue()
                }
            }
            if let name, let id { table[name] = id }
            skipSpace()
            if peek == UInt8(ascii: ",") { offset += 1; continue }
            try expect(UInt8(ascii: "]"), ", or ] after an image")
            return table
        }
    }

    /// The members of an object whose `{` was read, through its `}`: `body` reads each value.
    private mutating func members(_ body: (inout COCOImagesScanner, String) throws -> Void) throws {
        skipSpace()
        if peek == UInt8(ascii: "}") { offset += 1; return }
        while true {
            skipSpace()
            guard peek == UInt8(ascii: "\"") else { throw Error.syntax(offset: offset, expected: "a member name") }
            let key = try decoded(scalarToken()) as? String ?? ""
            skipSpace()
            try expect(UInt8(ascii: ":"), ":")
            skipSpace()
            try body(&self, key)
            skipSpace()
            if peek == UInt8(ascii: ",") { offset += 1; continue }
            try expect(UInt8(ascii: "}"), ", or }")
            return
        }
    }

    /// Steps over one value of any kind (nesting counted, strings skipped whole).
    private mutating func skipValue() throws {
        guard peek == UInt8(ascii: "{") || peek == UInt8(ascii: "[") else { _ = try scalarToken(); return }
        var depth = 0
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") { _ = try stringToken(); continue }
            offset += 1
            if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") { depth += 1 }
            if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                depth -= 1
                if depth == 0 { return }
            }
        }
        throw Error.syntax(offset: offset, expected: "the end of an object or array")
    }

    /// The bytes of a string, number or literal at `offset`, which it passes.
    private mutating func scalarToken() throws -> ArraySlice<UInt8> {
        if peek == UInt8(ascii: "\"") { return try stringToken() }
        let start = offset
        while offset < bytes.count, !Self.ends(bytes[offset]) { offset += 1 }
        guard offset > start else { throw Error.syntax(offset: offset, expected: "a value") }
        return bytes[start..<offset]
    }

    private mutating func stringToken() throws -> ArraySlice<UInt8> {
        let start = offset
        offset += 1
        while offset < bytes.count {
            switch bytes[offset] {
            case UInt8(ascii: "\\"): offset += 2
            case UInt8(ascii: "\""):
                offset += 1
                return bytes[start..<offset]
            default: offset += 1
            }
        }
        throw Error.syntax(offset: start, expected: "the end of this string")
    }

    private func decoded(_ token: ArraySlice<UInt8>) throws -> Any {
        guard let value = try? JSONSerialization.jsonObject(with: Data(token), options: .fragmentsAllowed) else {
            throw Error.syntax(offset: token.startIndex, expected: "a JSON value")
        }
        return value
    }

    private var peek: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    private mutating func skipSpace() {
        while offset < bytes.count, bytes[offset] == 0x20 || bytes[offset] == 0x09 || bytes[offset] == 0x0A || bytes[offset] == 0x0D {
            offset += 1
        }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws {
        skipSpace()
        guard peek == byte else { throw Error.syntax(offset: offset, expected: what) }
        offset += 1
    }

    private static func ends(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") || byte == 0x20 || byte == 0x09
            || byte == 0x0A || byte == 0x0D
    }
}
