import Foundation
import TestSupport
import XCTest

/// Issue #31 item 10: with stdout and stderr on one terminal, the progress bar is erased
/// before each result line, so no line starts with a piece of the bar.
final class ProgressTerminalTests: XCTestCase {
    /// What a terminal shows of one line: the text after its last carriage return, without
    /// the erase-line sequence.
    func shown(_ line: String) -> String {
        let last = pieces(line, "\r").last { !$0.isEmpty } ?? ""
        return last.replacingOccurrences(of: "\u{1B}[K", with: "")
    }

    /// `text` split at each `separator` scalar (Swift's "\r\n" is one Character, which a
    /// split by Characters would miss).
    func pieces(_ text: String, _ separator: Unicode.Scalar) -> [String] {
        text.unicodeScalars.split(separator: separator, omittingEmptySubsequences: false).map { String(String.UnicodeScalarView($0)) }
    }

    func testResultLinesStartClean() throws {
        let photos = try ["dog", "horses", "eagle"].map { try TestData.path("data/\($0).jpg") }
        let folder = (photos[0] as NSString).deletingLastPathComponent
        let arguments = (try CLI.tinyDetector() + photos).map { "'\($0)'" }.joined(separator: " ")
        // script(1) runs the command on a pseudo-terminal: stdout and stderr are the same tty.
        let result = try CLI.run(executable: URL(fileURLWithPath: "/usr/bin/script"),
                                 ["-qec", "\"\(CLI.binary.path)\" detect \(arguments)", "/dev/null"], timeout: 300)
        XCTAssertEqual(result.status, 0, result.stdout)
        let lines = pieces(result.stdout, "\n").map(shown).filter { !$0.isEmpty }
        let headers = lines.filter { $0.contains("Predicted in") }
        XCTAssertEqual(headers.count, 3, result.stdout)
        for header in headers { XCTAssertTrue(header.hasPrefix(folder), "garbled: \(header.debugDescription)") }
        for line in lines where line.contains("left=") {
            XCTAssertTrue(line.first?.isLetter == true, "garbled: \(line.debugDescription)")
        }
        XCTAssertTrue(result.stdout.contains("[####"), "the bar was drawn: \(result.stdout.debugDescription)")
    }
}
