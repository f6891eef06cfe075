import Foundation
import XCTest

/// `stream`'s outputs (issue #31, item 2): failed writes and a reader that goes away.
final class StreamOutputTests: XCTestCase {
    func tinyArguments() throws -> [String] {
        [try CLI.data("cfg/yolov3-tiny.cfg"), try CLI.data("yolov3-tiny.weights")]
    }

    /// Eight copies of dog.jpg: enough lines that some are written after a reader has gone.
    func dogStream() throws -> URL {
        let dog = try Data(contentsOf: URL(fileURLWithPath: try CLI.data("data/dog.jpg")))
        let url = try CLI.temporaryFolder(self).appendingPathComponent("dogs.mjpeg")
        try Data(Array(repeating: dog, count: 8).joined()).write(to: url)
        return url
    }

    func testAFullDiskIsOneLineAndExitStatusOne() throws {
        let frames = try dogStream()
        let cases = [
            ("\"$0\" stream \"$1\" \"$2\" > /dev/full", "stdout"),
            ("\"$0\" stream \"$1\" \"$2\" --annotate-pipe --jsonl /dev/null > /dev/full", "stdout"),
            ("\"$0\" stream \"$1\" \"$2\" --jsonl /dev/full", "/dev/full"),
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
}
