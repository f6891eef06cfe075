import Foundation
import XCTest

/// Code shown in the README and the DocC articles, checked against the code the tests run, so
/// that a snippet cannot drift from what compiles and works.
///
/// In a document, a snippet is the first ```` ```swift ```` block after a line
/// `<!-- snippet: NAME -->`. In a test file, it is the lines between `// snippet: NAME` and
/// `// end snippet`, compiled and run as part of the test. The two must be the same lines once
/// the test's indentation is removed (trailing spaces ignored). A document's snippet may start
/// with `import` lines, which cannot stand inside a test function: each must be an import of
/// the test file instead.
enum DocSnippet {
    /// The package's root folder (this file is Tests/DarknetTests/DocSnippet.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    enum Failure: Error, CustomStringConvertible {
        case missing(String)
        var description: String {
            switch self {
            case .missing(let what): what
            }
        }
    }

    /// The lines of snippet `name` in `document` (a path relative to the package root).
    static func documented(_ name: String, in document: String) throws -> [String] {
        let lines = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
            .components(separatedBy: "\n")
        guard let marker = lines.firstIndex(of: "<!-- snippet: \(name) -->") else {
            throw Failure.missing("\(document) has no `<!-- snippet: \(name) -->` line")
        }
        guard let open = lines[marker...].firstIndex(of: "```swift"),
              let close = lines[(open + 1)...].firstIndex(of: "```") else {
            throw Failure.missing("\(document): no ```swift block after the snippet marker \(name)")
        }
        return lines[(open + 1)..<close].map(trimmedTrailing)
    }

    /// The lines of snippet `name` in the test source `file`, without their common indentation.
    static func tested(_ name: String, file: String) throws -> [String] {
        let lines = try String(contentsOfFile: file, encoding: .utf8).components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "// snippet: \(name)" }),
              let end = lines[(start + 1)...].firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "// end snippet" })
        else { throw Failure.missing("\(file) has no `// snippet: \(name)` … `// end snippet` lines") }
        let body = lines[(start + 1)..<end].map(trimmedTrailing)
        let indent = body.filter { !$0.isEmpty }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return body.map { $0.isEmpty ? $0 : String($0.dropFirst(indent)) }
    }

    /// Fails when snippet `name` of `document` is not the code between the markers of the
    /// calling test file.
    static func assertSame(_ name: String, in document: String, testFile: StaticString = #filePath,
                           line: UInt = #line) throws {
        var shown = try documented(name, in: document)
        let run = try tested(name, file: "\(testFile)")
        let testLines = Set(try String(contentsOfFile: "\(testFile)", encoding: .utf8).components(separatedBy: "\n"))
        while let first = shown.first, first.hasPrefix("import ") || (first.isEmpty && shown.count > 1 && shown[1].hasPrefix("import ")) {
            if !first.isEmpty && !testLines.contains(first) {
                XCTFail("\(document)'s snippet \(name) says `\(first)`; the test file does not", file: testFile, line: line)
            }
            shown.removeFirst()
        }
        while shown.first == "" { shown.removeFirst() }
        guard shown != run else { return }
        let first = zip(shown, run).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(shown.count, run.count)
        let at = { (lines: [String]) in first < lines.count ? lines[first] : "(end)" }
        XCTFail("""
            \(document)'s snippet \(name) differs from the code the test runs, at its line \(first + 1):
              document: \(at(shown))
              test:     \(at(run))
            """, file: testFile, line: line)
    }

    private static func trimmedTrailing(_ line: String) -> String {
        var line = line
        while line.last == " " || line.last == "\t" { line.removeLast() }
        return line
    }
}
