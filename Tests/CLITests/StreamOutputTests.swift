import Foundation
import TestSupport
import XCTest

/// `stream`'s outputs and frictions (issue #31, items 2 and 4): failed writes, a reader that
/// goes away, files that must not be overwritten, stdin left on the terminal.
final class StreamOutputTests: XCTestCase {
    func tinyArguments() throws -> [String] {
        [try TestData.path("cfg/yolov3-tiny.cfg"), try TestData.path("yolov3-tiny.weights")]
    }

    /// Eight copies of dog.jpg: enough lines that some are written after a reader has gone.
    func dogStream() throws -> URL {
        let dog = try Data(contentsOf: URL(fileURLWithPath: try TestData.path("data/dog.jpg")))
        let url = try CLI.temporaryFolder(self).appendingPathComponent("dogs.mjpeg")
        try Data(Array(repeating: dog, count: 8).joined()).write(to: url)
        return url
    }

    func testAFullDiskIsOneLineAndExitStatusOne() throws {
        let frames = try dogStream()
        let cases = [
            ("\"$0\" stream \"$1\" \"$2\" > /dev/full", "stdout"),
            ("\"$0\" stream \"$1\" \"$2\" --annotate-pipe --jsonl /dev/null --force > /dev/full", "stdout"),
            ("\"$0\" stream \"$1\" \"$2\" --jsonl /dev/full --force", "/dev/full"),
        ]
        for (script, name) in cases {
            let result = try CLI.bash(script, try tinyArguments(), stdin: frames)
            XCTAssertEqual(result.status, 1, script)
            XCTAssertEqual(result.stderr, "darknet-swift: error: cannot write to \(name): No space left on device\n", script)
        }
    }

    /// `| head -c 1`: the reader leaves after one byte. With SIGPIPE ignored the run ends
    /// quietly with status 0; with SIGPIPE at its default the signal ends it, quietly too.
    func testAReaderThatGoesAwayEndsTheRunQuietly() throws {
        let frames = try dogStream()
        for (signal, statuses) in [("--ignore-signal=PIPE", [0]), ("--default-signal=PIPE", [0, 141])] {
            let script = "env \(signal) \"$0\" stream \"$1\" \"$2\" | head -c 1 > /dev/null; echo \"status ${PIPESTATUS[0]}\""
            let result = try CLI.bash(script, try tinyArguments(), stdin: frames)
            XCTAssertEqual(result.stderr, "", signal)
            let status = try XCTUnwrap(Int32(result.stdout.replacingOccurrences(of: "status ", with: "").trimmingCharacters(in: .whitespacesAndNewlines)))
            XCTAssertTrue(statuses.contains(Int(status)), "\(signal): status \(status)")
        }
    }

    func testAnnotateToAndJSONLRefuseExistingFilesWithoutForce() throws {
        let frames = try dogStream()
        let folder = try CLI.temporaryFolder(self)
        let annotations = folder.appendingPathComponent("annotated")
        try FileManager.default.createDirectory(at: annotations, withIntermediateDirectories: true)
        let mine = annotations.appendingPathComponent("frame-000003.jpg")
        try Data("mine".utf8).write(to: mine)
        let refused = try CLI.run(["stream"] + tinyArguments() + ["--annotate-to", annotations.path], stdin: frames)
        XCTAssertEqual(refused.status, 2)
        XCTAssertEqual(refused.stdout, "")
        XCTAssertEqual(refused.stderr, "darknet-swift: error: \(mine.path) already exists (use --force to overwrite it)\n")
        XCTAssertEqual(try Data(contentsOf: mine), Data("mine".utf8))
        let forced = try CLI.run(["stream"] + tinyArguments() + ["--annotate-to", annotations.path, "--force", "--quiet"], stdin: frames)
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertEqual(Array(try Data(contentsOf: mine).prefix(2)), [0xFF, 0xD8], "overwritten when asked")
        // Other files in the folder do not count.
        let other = folder.appendingPathComponent("other")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try Data("notes".utf8).write(to: other.appendingPathComponent("frame-1.jpg"))
        XCTAssertEqual(try CLI.run(["stream"] + tinyArguments() + ["--annotate-to", other.path, "--quiet"], stdin: frames).status, 0)

        let jsonl = folder.appendingPathComponent("frames.jsonl")
        try Data("earlier run\n".utf8).write(to: jsonl)
        let kept = try CLI.run(["stream"] + tinyArguments() + ["--jsonl", jsonl.path], stdin: frames)
        XCTAssertEqual(kept.status, 2)
        XCTAssertEqual(kept.stderr, "darknet-swift: error: \(jsonl.path) already exists (use --force to overwrite it)\n")
        XCTAssertEqual(try String(contentsOf: jsonl, encoding: .utf8), "earlier run\n")
        let file = folder.appendingPathComponent("a-file")
        try Data().write(to: file)
        let notFolder = try CLI.run(["stream"] + tinyArguments() + ["--annotate-to", file.path], stdin: frames)
        XCTAssertEqual(notFolder.status, 2)
        XCTAssertTrue(notFolder.stderr.contains("--annotate-to \(file.path): a file, not a folder"), notFolder.stderr)
    }

    /// Nothing piped in: stdin is the terminal (a pseudo-terminal made by util-linux's
    /// `script`). A hint on stderr says what to pipe; Ctrl-D then ends the run (0 frames) as
    /// for any filter.
    func testATerminalOnStdinGetsAHint() throws {
        #if os(Linux)
        let errors = try CLI.temporaryFolder(self).appendingPathComponent("stderr")
        let command = (["stream"] + (try tinyArguments())).map { "'\($0)'" }.joined(separator: " ")
        let result = try CLI.bash("printf '\\004' | script -qec \"'$0' \(command) 2>'$1'\" /dev/null > /dev/null", [errors.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let stderr = try String(contentsOf: errors, encoding: .utf8)
        let lines = stderr.split(separator: "\n")
        XCTAssertTrue(lines.first?.hasPrefix("darknet-swift: stream reads MJPEG or raw RGB24 frames from stdin, which is a terminal") == true, stderr)
        XCTAssertTrue(stderr.contains("stream: 0 frames read"), stderr)
        #endif
        // Piped or redirected stdin gets no hint.
        let piped = try CLI.run(["stream"] + tinyArguments(), stdin: try dogStream())
        XCTAssertFalse(piped.stderr.contains("terminal"), piped.stderr)
    }
}
