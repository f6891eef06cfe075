import Foundation
import TestSupport
import XCTest

/// `darknet-swift detect` through the real binary, with the real yolov3-tiny weights.
final class DetectCommandTests: XCTestCase {
    func tinyArguments() throws -> [String] {
        [try TestData.path("cfg/yolov3-tiny.cfg"), try TestData.path("yolov3-tiny.weights")]
    }

    func testTextOutputIsDarknetsLinesWithBoxes() throws {
        let result = try CLI.run(["detect"] + tinyArguments() + [try TestData.path("data/dog.jpg")])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines[0].hasSuffix("dog.jpg: Predicted in \(lines[0].split(separator: " ")[3]) seconds."), lines[0])
        let labels = lines.dropFirst().map { $0.split(separator: "\t")[0] }.sorted()
        XCTAssertEqual(labels, ["bicycle: 59%", "car: 52%", "car: 62%", "dog: 56%", "truck: 55%"], result.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("dog: 56%\tleft=") })
    }

    func testJSONOutput() throws {
        let result = try CLI.run(["detect"] + tinyArguments() + [try TestData.path("data/dog.jpg"), "--format", "jsonl"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["width"] as? Int, 768)
        XCTAssertEqual(object["height"] as? Int, 576)
        let detections = try XCTUnwrap(object["detections"] as? [[String: Any]])
        XCTAssertEqual(detections.count, 5)
        let dog = try XCTUnwrap(detections.first { $0["name"] as? String == "dog" })
        XCTAssertEqual(dog["classId"] as? Int, 16)
        XCTAssertEqual(try XCTUnwrap(dog["confidence"] as? Double), 0.56, accuracy: 0.01)
        let box = try XCTUnwrap(dog["box"] as? [String: Int])
        XCTAssertEqual(Set(box.keys), ["left", "top", "right", "bottom"])
        let normalized = try XCTUnwrap(dog["normalized"] as? [String: Double])
        XCTAssertEqual(Set(normalized.keys), ["x", "y", "width", "height"])
    }

    /// `--batch 3` over the seven photos (batches of 3, 3 and 1, pipelined or not) writes the
    /// same detections as one image at a time; only the timings differ.
    func testBatchGivesTheSameDetections() throws {
        let photos = try ["dog", "eagle", "giraffe", "horses", "kite", "person", "scream"].map { try TestData.path("data/\($0).jpg") }
        func detections(_ extra: [String]) throws -> [String] {
            let result = try CLI.run(["detect"] + tinyArguments() + photos + ["--format", "jsonl", "--quiet"] + extra)
            XCTAssertEqual(result.status, 0, result.stderr)
            return try result.stdout.split(separator: "\n").map { line in
                var object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                object["timing"] = nil
                return String(decoding: try JSONSerialization.data(withJSONObject: object, options: .sortedKeys), as: UTF8.self)
            }
        }
        let single = try detections([])
        XCTAssertEqual(single.count, 7)
        XCTAssertEqual(try detections(["--batch", "3"]), single)
        XCTAssertEqual(try detections(["--batch", "3", "--no-pipeline"]), single)
        let bad = try CLI.run(["detect"] + tinyArguments() + [photos[0], "--batch", "0"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("--batch must be in 1...64"), bad.stderr)
    }

    func testAnnotatedOutputAndNoOverwrite() throws {
        let folder = try CLI.temporaryFolder(self)
        let target = folder.appendingPathComponent("out.png").path
        let dog = try TestData.path("data/dog.jpg")
        let first = try CLI.run(["detect"] + tinyArguments() + [dog, "--output", target])
        XCTAssertEqual(first.status, 0, first.stderr)
        let header = try Data(contentsOf: URL(fileURLWithPath: target)).prefix(8)
        XCTAssertEqual(Array(header), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "a PNG was written")

        let again = try CLI.run(["detect"] + tinyArguments() + [dog, "--output", target])
        XCTAssertEqual(again.status, 2, "a usage error")
        XCTAssertTrue(again.stderr.contains("already exists"), again.stderr)
        XCTAssertEqual(try CLI.run(["detect"] + tinyArguments() + [dog, "--output", target, "--force"]).status, 0)

        let copy = folder.appendingPathComponent("dog.png").path
        try FileManager.default.copyItem(atPath: target, toPath: copy)
        let ontoInput = try CLI.run(["detect"] + tinyArguments() + [copy, "--output", copy, "--force"])
        XCTAssertEqual(ontoInput.status, 2, "a usage error")
        XCTAssertTrue(ontoInput.stderr.contains("input"), ontoInput.stderr)
    }

    func testErrorsAreOneLineWithNonZeroExit() throws {
        let folder = try CLI.temporaryFolder(self)
        let html = folder.appendingPathComponent("model.weights")
        try "<!DOCTYPE html><html>Not Found</html>".write(to: html, atomically: true, encoding: .utf8)
        let cfg = try TestData.path("cfg/yolov3-tiny.cfg")
        let dog = try TestData.path("data/dog.jpg")
        let bad = try CLI.run(["detect", cfg, html.path, dog])
        XCTAssertEqual(bad.status, 2, "a model error")
        XCTAssertEqual(bad.stderr, "darknet-swift: error: \(html.path): this is an HTML page, not Darknet weights (a failed download?)\n")

        let notImage = folder.appendingPathComponent("notes.jpg")
        try "hello".write(to: notImage, atomically: true, encoding: .utf8)
        let image = try CLI.run(["detect"] + tinyArguments() + [notImage.path])
        XCTAssertEqual(image.status, 1)
        XCTAssertTrue(image.stderr.contains(notImage.path), image.stderr)

        let flag = try CLI.run(["detect"] + tinyArguments() + [dog, "--thresh", "2"])
        XCTAssertNotEqual(flag.status, 0)
        XCTAssertTrue(flag.stderr.contains("--thresh"), flag.stderr)
        let size = try CLI.run(["detect"] + tinyArguments() + [dog, "--size", "100"])
        XCTAssertNotEqual(size.status, 0)
        XCTAssertTrue(size.stderr.contains("--size"), size.stderr)
    }

    func testSizeOverrideRuns() throws {
        let result = try CLI.run(["detect"] + tinyArguments() + [try TestData.path("data/dog.jpg"), "--size", "320", "--format", "jsonl"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["width"] as? Int, 768)
        XCTAssertNotNil(object["detections"] as? [[String: Any]])
    }
}
