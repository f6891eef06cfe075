import Foundation
import XCTest

/// The "Adding a layer" article (Sources/Darknet/Darknet.docc/AddingALayer.md) against the
/// code it walks through, as `SupportTableTests` keeps the support table: a ```` ```swift ````
/// block after `<!-- excerpt: PATH -->` must appear verbatim in that file (the lines as they
/// stand, indentation included), and the bullet list after `<!-- requirements: PROTOCOL in
/// PATH -->` must name exactly the requirements that protocol declares there, by their base
/// names (`layer(_:in:)` is `layer`).
final class AddingALayerArticleTests: XCTestCase {
    private let article = "Sources/Darknet/Darknet.docc/AddingALayer.md"

    private func text(_ path: String) throws -> String {
        try String(contentsOf: DocSnippet.root.appendingPathComponent(path), encoding: .utf8)
    }

    /// Each `<!-- NAME: ARGUMENT -->` marker's argument and the lines after it up to the first
    /// blank line (a code block's fences included).
    private func marked(_ name: String) throws -> [(argument: String, lines: [String])] {
        let lines = try text(article).components(separatedBy: "\n")
        return lines.indices.compactMap { index in
            let line = lines[index]
            guard line.hasPrefix("<!-- \(name): "), line.hasSuffix(" -->") else { return nil }
            let argument = String(line.dropFirst("<!-- \(name): ".count).dropLast(" -->".count))
            var end = index + 1
            var fenced = false
            while end < lines.count, fenced || !lines[end].isEmpty {
                if lines[end].hasPrefix("```") { fenced.toggle() }
                end += 1
            }
            return (argument, Array(lines[(index + 1)..<end]))
        }
    }

    func testEveryExcerptIsInItsFile() throws {
        let excerpts = try marked("excerpt")
        XCTAssertGreaterThanOrEqual(excerpts.count, 9, "the article quotes each step")
        XCTAssertEqual(excerpts.filter { $0.argument == "Sources/Darknet/Layers/Upsample.swift" }.count, 5)
        for (path, lines) in excerpts {
            guard lines.first == "```swift", lines.last == "```", lines.count > 2 else {
                XCTFail("\(article): the excerpt marker for \(path) must be followed by a ```swift block")
                continue
            }
            let code = lines.dropFirst().dropLast().joined(separator: "\n")
            XCTAssertTrue(try text(path).contains(code),
                          "\(article): the excerpt of \(path) starting `\(lines[1])` is no longer the file's text")
        }
    }

    func testRequirementListsAreTheProtocols() throws {
        let lists = try marked("requirements")
        XCTAssertEqual(lists.map(\.argument), ["LayerType in Sources/Darknet/Model/LayerType.swift",
                                               "DetectionHeadLayer in Sources/Darknet/Detection/DetectionHeadLayer.swift"])
        for (argument, lines) in lists {
            let parts = argument.components(separatedBy: " in ")
            let declared = try requirements(of: parts[0], in: text(parts[1]))
            XCTAssertFalse(declared.isEmpty, argument)
            let listed = lines.compactMap { line -> String? in
                guard line.hasPrefix("- `") else { return nil }
                return String(line.dropFirst(3).prefix { $0 != "`" && $0 != "(" })
            }
            XCTAssertEqual(listed.count, lines.count, "\(argument): every line of the list names a requirement")
            XCTAssertEqual(Set(listed).count, listed.count, "\(argument): a requirement listed twice")
            XCTAssertEqual(Set(listed), declared, "\(argument): the article's list differs from the protocol")
        }
    }

    /// The base names of the `var`, `func` (and `static` ones) declared in `protocol name`'s body.
    private func requirements(of name: String, in source: String) -> Set<String> {
        let lines = source.components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0.hasPrefix("protocol \(name):") || $0.hasPrefix("protocol \(name) {") })
        else { return [] }
        var names: Set<String> = []
        for line in lines[(start + 1)...] {
            if line == "}" { break }
            var declaration = Substring(line.trimmingCharacters(in: .whitespaces))
            if declaration.hasPrefix("static ") { declaration = declaration.dropFirst("static ".count) }
            for keyword in ["var ", "func "] where declaration.hasPrefix(keyword) {
                names.insert(String(declaration.dropFirst(keyword.count).prefix { $0.isLetter || $0.isNumber || $0 == "_" }))
            }
        }
        return names
    }
}
