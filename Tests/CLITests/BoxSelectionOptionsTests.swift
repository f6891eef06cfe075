import Foundation
import TestSupport
import XCTest

/// The options `detect` and `stream` share (`DetectionOptions`, `BoxSelectionOptions`), through
/// the real binary: each command checks them the same way, and `--nms`/`--classes` act on both.
final class BoxSelectionOptionsTests: XCTestCase {
    func tinyArguments() throws -> [String] {
        [try TestData.path("cfg/yolov3-tiny.cfg"), try TestData.path("yolov3-tiny.weights")]
    }

    /// Checked while parsing, before any file is opened: the cfg need not exist.
    func testOutOfRangeValuesAreRefusedByBothCommands() throws {
        let commands = [["detect", "/nonexistent.cfg", "/nonexistent.weights", "photo.jpg"],
                        ["stream", "/nonexistent.cfg", "/nonexistent.weights"]]
        let cases = [(["--thresh", "1.5"], "--thresh must be in 0...1, got 1.5"),
                     (["--hier-thresh=-0.25"], "--hier-thresh must be in 0...1, got -0.25"),
                     (["--nms", "2"], "--nms must be in 0...1, got 2.0"),
                     (["--max-detections=-1"], "--max-detections must be ≥ 0")]
        for command in commands {
            for (option, message) in cases {
                let result = try CLI.run(command + option)
                XCTAssertEqual(result.status, 2, "\(command[0]) \(option): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains(message), "\(command[0]) \(option): \(result.stderr)")
            }
        }
    }

    /// dog.jpg at a low threshold: `--nms 0` keeps the overlapping boxes NMS removes, and
    /// `--classes dog` keeps only dogs; `stream` (the photo as a one-frame MJPEG stream) finds
    /// the same boxes as `detect`.
    func testNMSAndClassesActOnDetectAndStream() throws {
        let photo = try TestData.path("data/dog.jpg")
        func classes(_ command: String, _ options: [String]) throws -> [String] {
            let common = ["--thresh", "0.1", "--quiet"] + options
            let result = command == "detect"
                ? try CLI.run(["detect"] + tinyArguments() + [photo, "--format", "jsonl"] + common)
                : try CLI.run(["stream"] + tinyArguments() + common, stdin: URL(fileURLWithPath: photo))
            XCTAssertEqual(result.status, 0, "\(command) \(options): \(result.stderr)")
            let line = try XCTUnwrap(result.stdout.split(separator: "\n").first, "\(command) \(options)")
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let detections = try XCTUnwrap(json["detections"] as? [[String: Any]], "\(command): \(line)")
            return detections.compactMap { $0["name"] as? String }
        }
        for command in ["detect", "stream"] {
            let suppressed = try classes(command, []), all = try classes(command, ["--nms", "0"])
            XCTAssertTrue(suppressed.contains("dog"), "\(command): \(suppressed)")
            XCTAssertGreaterThan(all.count, suppressed.count, command)
            XCTAssertEqual(try classes(command, ["--classes", "dog"]), suppressed.filter { $0 == "dog" }, command)
        }
        XCTAssertEqual(try classes("detect", ["--nms", "0"]), try classes("stream", ["--nms", "0"]))
    }
}
