import Foundation
import TestSupport
import XCTest

/// Issue #31 item 2: a failed write to stdout is one line on stderr and a non-zero exit for
/// every command (never a crash, never exit 0 with the output lost); a closed pipe ends the
/// run quietly.
final class WriteFailureTests: XCTestCase {
    func assertReportsFullDisk(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let quoted = arguments.map { "'\($0)'" }.joined(separator: " ")
        let result = try CLI.shell("exec \"$BIN\" \(quoted) > /dev/full")
        XCTAssertFalse(result.signaled, "crashed: \(result.stderr.prefix(300))", file: file, line: line)
        XCTAssertEqual(result.status, 1, "\(arguments[0]): \(result.stderr.prefix(300))", file: file, line: line)
        let lines = result.stderr.split(separator: "\n")
        XCTAssertTrue(lines.contains("darknet-swift: error: cannot write to stdout: No space left on device"),
                      "\(arguments[0]): \(result.stderr.prefix(300))", file: file, line: line)
    }

    func testDetectToAFullDisk() throws {
        let dog = try TestData.path("data/dog.jpg")
        for format in ["text", "jsonl", "csv", "coco"] {
            // coco: the opening bracket is the first write.
            try assertReportsFullDisk(["detect"] + CLI.tinyDetector() + [dog, "--format", format])
        }
        try assertReportsFullDisk(["detect"] + CLI.tinyDetector() + [dog, dog, "--no-pipeline", "--quiet"])
    }

    func testClassifySummaryAndBenchmarkToAFullDisk() throws {
        let (cfg, weights) = try CLI.tinyClassifier(in: try CLI.temporaryFolder(self))
        try assertReportsFullDisk(["classify", cfg, weights, try TestData.path("data/dog.jpg")])
        try assertReportsFullDisk(["summary", try TestData.path("cfg/yolov3-tiny.cfg")])
        try assertReportsFullDisk(["benchmark", try TestData.path("cfg/yolov3-tiny.cfg"), "--runs", "1", "--warmup", "0", "--size", "64"])
    }

    /// `| head -c 1` with SIGPIPE ignored (as under some supervisors and language runtimes):
    /// the next write fails with EPIPE; the run ends at once, silently, with status 141 as if
    /// SIGPIPE had ended it.
    func testClosedPipeEndsTheRunQuietly() throws {
        let dog = try TestData.path("data/dog.jpg")
        let arguments = ["detect"] + (try CLI.tinyDetector()) + [dog, dog, dog, dog, "--format", "jsonl", "--quiet"]
        let quoted = arguments.map { "'\($0)'" }.joined(separator: " ")
        // The reader is gone before the first write: stdout is a pipe whose read end is closed.
        let script = "trap '' PIPE; ( \"$BIN\" \(quoted); echo \"status $?\" >&2 ) | true"
        let result = try CLI.shell(script)
        XCTAssertTrue(result.stderr.hasSuffix("status 141\n"), result.stderr.prefix(400).description)
        XCTAssertFalse(result.stderr.contains("error"), result.stderr.prefix(400).description)
        XCTAssertFalse(result.stderr.contains("Fatal"), result.stderr.prefix(400).description)
    }
}
