import Foundation
import XCTest

/// `--help` of every command is compared with a snapshot in Fixtures/ (regenerate with
/// `UPDATE_SNAPSHOTS=1 swift test --filter HelpTests`, then review the diff).
final class HelpTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    func check(_ arguments: [String], snapshot: String) throws {
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, 0, result.stderr)
        let url = Self.fixtures.appendingPathComponent(snapshot)
        if ProcessInfo.processInfo.environment["UPDATE_SNAPSHOTS"] == "1" {
            try FileManager.default.createDirectory(at: Self.fixtures, withIntermediateDirectories: true)
            try result.stdout.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        XCTAssertEqual(result.stdout, expected, "--help changed: review and run with UPDATE_SNAPSHOTS=1")
    }

    func testRootHelp() throws { try check(["--help"], snapshot: "help.txt") }
    func testDetectHelp() throws { try check(["detect", "--help"], snapshot: "help-detect.txt") }
    func testStreamHelp() throws { try check(["stream", "--help"], snapshot: "help-stream.txt") }
    func testClassifyHelp() throws { try check(["classify", "--help"], snapshot: "help-classify.txt") }
    func testSummaryHelp() throws { try check(["summary", "--help"], snapshot: "help-summary.txt") }
    func testBenchmarkHelp() throws { try check(["benchmark", "--help"], snapshot: "help-benchmark.txt") }

    func testVersion() throws {
        let result = try CLI.run(["--version"])
        XCTAssertEqual(result.status, 0)
        XCTAssertFalse(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
    }
}
