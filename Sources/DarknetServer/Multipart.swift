import Foundation

/// `multipart/form-data` (RFC 7578) as far as an upload form needs it: the parts between
/// `--BOUNDARY` lines, each with its headers (`Content-Disposition`'s `name` and `filename`)
/// and its body. A body without the boundary, a part without its blank line, or no closing
/// `--BOUNDARY--` is refused with the byte offset where it went wrong.
package enum Multipart {
    package struct Part: Sendable {
        package var name: String?
        package var filename: String?
        package var body: [UInt8]
    }

    package static func parts(of body: [UInt8], contentType: String) throws(ServerError) -> [Part] {
        guard let boundary = parameter("boundary", in: contentType), !boundary.isEmpty, boundary.utf8.count <= 70 else {
            throw .badRequest("multipart/form-data without a boundary= parameter (1 to 70 characters)")
        }
        let delimiter = Array("--\(boundary)".utf8)
        guard var start = find(delimiter, in: body, from: 0) else {
            throw .badRequest("multipart body: the boundary --\(boundary) never appears")
        }
        var parts: [Part] = []
        while true {
            var cursor = start + delimiter.count
            if body.count >= cursor + 2, body[cursor] == UInt8(ascii: "-"), body[cursor + 1] == UInt8(ascii: "-") { return parts }
            guard let lineEnd = find([13, 10], in: body, from: cursor) else {
                throw .badRequest("multipart body: byte \(cursor): no line end after the boundary")
            }
            cursor = lineEnd + 2
            guard let headerEnd = find([13, 10, 13, 10], in: body, from: cursor - 2) else {
                throw .badRequest("multipart body: byte \(cursor): a part's headers never end (no blank line)")
            }
            let headers = String(decoding: body[cursor..<max(cursor, headerEnd)], as: UTF8.self)
            let contentStart = headerEnd + 4
            guard let next = find([13, 10] + delimiter, in: body, from: contentStart) else {
                throw .badRequest("multipart body: byte \(contentStart): the part is not closed by --\(boundary)")
            }
            var part = Part(name: nil, filename: nil, body: Array(body[contentStart..<next]))
            for line in headers.split(separator: "\r\n") where line.lowercased().hasPrefix("content-disposition:") {
                part.name = parameter("name", in: String(line))
                part.filename = parameter("filename", in: String(line))
            }
            parts.append(part)
            start = next + 2
        }
    }

    /// A `key=value` or `key="value"` parameter of a header value (`; `-separated).
    static func parameter(_ key: String, in header: String) -> String? {
        for item in header.split(separator: ";").dropFirst() {
            let pair = item.trimmingCharacters(in: .whitespaces)
            guard let equals = pair.firstIndex(of: "="), pair[..<equals].lowercased() == key else { continue }
            var value = pair[pair.index(after: equals)...]
            if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
            return String(value)
        }
        return nil
    }

    /// The first index of `needle` in `haystack` at or after `from`.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, from <= haystack.count - needle.count else { return nil }
        let first = needle[0]
        var index = from
        while index <= haystack.count - needle.count {
            if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
