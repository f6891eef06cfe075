import Foundation
import TestSupport
import XCTest

/// AlexeyAB's darknet's outputs committed under Fixtures/darknet (see its README for the
/// commands and his commit), and the comparison the tests make with them: the same text once
/// every number is masked, and the numbers within a tolerance.
enum DarknetOracle {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/darknet")

    static let photos = ["dog", "eagle", "giraffe", "horses", "kite", "person", "scream"]

    static func text(_ name: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
    }

    /// `text` with every number written as `N` (the layout his parsers read).
    static func masked(_ text: String) -> String {
        text.replacingOccurrences(of: #"-?[0-9]+(\.[0-9]+)?"#, with: "N", options: .regularExpression)
    }

    /// The numbers of `text`, in order.
    static func numbers(_ text: String) -> [Double] {
        let regex = try! NSRegularExpression(pattern: #"-?[0-9]+(\.[0-9]+)?"#)
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range, in: text).flatMap { Double(text[$0]) }
        }
    }

    /// A folder `set/` holding the seven photos and his label files, `valid.txt` listing them,
    /// and `set.data` (`classes=80`, `names`, `valid`), as his runs had them; `extra` lines are
    /// added to set.data. Returns the folder (the tests run there: darknet's paths are relative
    /// to the current folder).
    static func labelledSet(_ testCase: XCTestCase, photos: [String] = photos, labels: Bool = true, extra: String = "") throws -> URL {
        let root = try CLI.temporaryFolder(testCase)
        let set = root.appendingPathComponent("set")
        try FileManager.default.createDirectory(at: set, withIntermediateDirectories: true)
        for photo in photos {
            try FileManager.default.copyItem(atPath: try TestData.path("data/\(photo).jpg"), toPath: set.appendingPathComponent("\(photo).jpg").path)
            if labels {
                try FileManager.default.copyItem(at: folder.appendingPathComponent("set-labels/\(photo).txt"),
                                                 to: set.appendingPathComponent("\(photo).txt"))
            }
        }
        try photos.map { "set/\($0).jpg\n" }.joined().write(to: root.appendingPathComponent("valid.txt"), atomically: true, encoding: .utf8)
        try "classes=80\nnames=\(try TestData.path("data/coco.names"))\nvalid=valid.txt\n\(extra)"
            .write(to: root.appendingPathComponent("set.data"), atomically: true, encoding: .utf8)
        return root
    }

    /// Runs the binary in `folder` (darknet's relative paths).
    static func run(_ arguments: [String], in folder: URL, stdin: URL? = nil) throws -> CLIResult {
        try CLI.run(["-c", "cd \"$0\" && exec \"$1\" \"${@:2}\"", folder.path, CLI.binary.path] + arguments,
                    stdin: stdin, executable: URL(fileURLWithPath: "/bin/bash"))
    }
}
