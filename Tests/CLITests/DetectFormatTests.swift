import Foundation
import TestSupport
import XCTest

/// Issue #51 item 6: `--format ext`, `darknet-json`, `json` (one document), several results
/// files from one pass, and no detections lost to a file that cannot be written.
final class DetectFormatTests: XCTestCase {
    /// AlexeyAB's `-out` file, read by a parser written from his field list alone
    /// (`detection_to_json`: frame_id, filename, objects[] of class_id, name,
    /// relative_coordinates{center_x, center_y, width, height}, confidence).
    struct DarknetJSONImage: Decodable {
        struct Object: Decodable {
            struct Coordinates: Decodable {
                var center_x: Double
                var center_y: Double
                var width: Double
                var height: Double
            }
            var class_id: Int
            var name: String
            var relative_coordinates: Coordinates
            var confidence: Double
        }
        var frame_id: Int
        var filename: String
        var objects: [Object]
    }

    private func photos(_ names: [String]) throws -> [String] {
        try names.map { try TestData.path("data/\($0).jpg") }
    }

    /// `darknet-json` reads back with his field names, one image a frame counting from 1, each
    /// (box, class) of the JSON Lines output an object; its layout is his file's.
    func testDarknetJSONIsHisFile() throws {
        let inputs = try photos(["dog", "eagle", "scream"])
        let result = try CLI.run(["detect"] + CLI.tinyDetector() + inputs + ["--format", "darknet-json", "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let images = try JSONDecoder().decode([DarknetJSONImage].self, from: Data(result.stdout.utf8))
        XCTAssertEqual(images.map(\.frame_id), [1, 2, 3])
        XCTAssertEqual(images.map(\.filename), inputs)
        XCTAssertEqual(images[2].objects.count, 0, "the scream: no boxes above 0.5")
        let lines = try CLI.run(["detect"] + CLI.tinyDetector() + [inputs[0], "--format", "jsonl"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(lines.stdout.utf8)) as? [String: Any])
        let detections = try XCTUnwrap(object["detections"] as? [[String: Any]])
        XCTAssertEqual(images[0].objects.map(\.class_id), detections.map { $0["classId"] as! Int })
        for (mine, line) in zip(images[0].objects, detections) {
            XCTAssertEqual(mine.confidence, line["confidence"] as! Double, accuracy: 1e-6)
            XCTAssertEqual(mine.relative_coordinates.center_x, (line["normalized"] as! [String: Double])["x"]!, accuracy: 1e-6)
        }
        let his = try DarknetOracle.text("test-out-dog.json")
        let one = try CLI.run(["detect"] + CLI.tinyDetector() + [inputs[0], "--format", "darknet-json", "--quiet", "--thresh", "0.6"])
        let first = try XCTUnwrap(his.components(separatedBy: "  {").first)
        XCTAssertEqual(DarknetOracle.masked(one.stdout).components(separatedBy: "  {").first,
                       DarknetOracle.masked(first).replacingOccurrences(of: "\"data/dog.jpg\"", with: "\"\(DarknetOracle.masked(inputs[0]))\""))
        XCTAssertTrue(one.stdout.hasSuffix("\n ] \n}\n]"), one.stdout)
    }

    /// `--format json` is one document (an array, `json.load` reads it), with the threshold
    /// and why in each image; `jsonl` stays one object a line.
    func testJSONIsOneDocument() throws {
        let inputs = try photos(["dog", "eagle"])
        let result = try CLI.run(["detect"] + CLI.tinyDetector() + inputs + ["--format", "json", "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let array = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(array.map { $0["path"] as? String }, inputs)
        XCTAssertEqual((array[0]["threshold"] as? [String: Any])?["value"] as? Double, 0.5)
        XCTAssertEqual((array[0]["threshold"] as? [String: Any])?["reason"] as? String, "a pjreddie cfg: darknet detect's -thresh default")
        let lines = try CLI.run(["detect"] + CLI.tinyDetector() + inputs + ["--format", "jsonl", "--quiet", "--thresh", "0.3"])
        XCTAssertEqual(lines.stdout.split(separator: "\n").count, 2)
        let first = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(lines.stdout.split(separator: "\n")[0].utf8)) as? [String: Any])
        XCTAssertEqual((first["threshold"] as? [String: Any])?["value"] as? Double, 0.3)
        XCTAssertEqual((first["threshold"] as? [String: Any])?["reason"] as? String, "--thresh")
    }

    /// One pass writes every format asked for: each file is what a run of that format alone
    /// prints on stdout; the annotated images and labels come from the same pass.
    func testSeveralOutputsFromOnePass() throws {
        let folder = try CLI.temporaryFolder(self)
        let inputs = try photos(["dog", "giraffe"])
        let file = { (name: String) in folder.appendingPathComponent(name).path }
        let result = try CLI.run(["detect"] + CLI.tinyDetector() + inputs + [
            "--jsonl", file("r.jsonl"), "--csv", file("r.csv"), "--coco", file("r.coco.json"), "--darknet-json", file("r.json"),
            "--json", file("all.json"), "--output-dir", file("boxes"), "--save-labels", file("labels"), "--quiet", "--image-ids",
            try writeIds(folder),
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("dog: 56%"), "stdout keeps --format text")
        let noTiming = { (text: String) in text.replacingOccurrences(of: #""timing":\{[^}]*\},"#, with: "", options: .regularExpression) }
        for (format, name) in [("jsonl", "r.jsonl"), ("csv", "r.csv"), ("coco", "r.coco.json"), ("darknet-json", "r.json"), ("json", "all.json")] {
            let alone = try CLI.run(["detect"] + CLI.tinyDetector() + inputs + ["--format", format, "--quiet", "--image-ids", try writeIds(folder)])
            XCTAssertEqual(noTiming(try String(contentsOfFile: file(name), encoding: .utf8)), noTiming(alone.stdout), format)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: file("boxes")).sorted(), ["dog.jpg", "giraffe.jpg"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: file("labels")).sorted(), ["dog.txt", "giraffe.txt"])
        let again = try CLI.run(["detect"] + CLI.tinyDetector() + inputs + ["--jsonl", file("r.jsonl")])
        XCTAssertEqual(again.status, 2)
        XCTAssertTrue(again.stderr.contains("r.jsonl already exists (use --force to overwrite it)"), again.stderr)
    }

    private func writeIds(_ folder: URL) throws -> String {
        let url = folder.appendingPathComponent("ids.txt")
        try "dog.jpg 1\ngiraffe.jpg 2\neagle.jpg 3\n".write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// A rerun whose annotated images exist: each image fails naming --force and
    /// --skip-existing, and its detections are still written (the JSON is not lost).
    func testAFailedAnnotatedImageKeepsItsDetections() throws {
        let folder = try CLI.temporaryFolder(self)
        let inputs = try photos(["dog", "eagle"])
        let boxes = folder.appendingPathComponent("boxes").path
        XCTAssertEqual(try CLI.run(["detect"] + CLI.tinyDetector() + inputs + ["--output-dir", boxes, "--quiet"]).status, 0)
        let again = try CLI.run(["detect"] + CLI.tinyDetector() + inputs + ["--output-dir", boxes, "--format", "json", "--quiet"])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("dog.jpg already exists (use --force to overwrite it, or --skip-existing to skip the images done)"),
                      again.stderr)
        let array = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(array.count, 2)
        XCTAssertEqual((array[0]["detections"] as? [Any])?.count, 5)
    }

    /// COCO results at a threshold above 0.01 warn: COCO's mAP needs the low boxes.
    func testCOCOWarnsAboutItsThreshold() throws {
        let dog = try photos(["dog"])
        let warned = try CLI.run(["detect"] + CLI.tinyDetector() + dog + ["--format", "coco", "--image-ids", try writeIds(try CLI.temporaryFolder(self))])
        XCTAssertEqual(warned.status, 0, warned.stderr)
        XCTAssertTrue(warned.stderr.contains("warning: COCO results at threshold 0.5 (a pjreddie cfg: darknet detect's -thresh default)"),
                      warned.stderr)
        XCTAssertTrue(warned.stderr.contains("add --thresh 0.001, or run darknet-swift map"), warned.stderr)
        let quiet = try CLI.run(["detect"] + CLI.tinyDetector() + dog + ["--format", "coco", "--thresh", "0.005", "--image-ids",
                                                                         try writeIds(try CLI.temporaryFolder(self))])
        XCTAssertFalse(quiet.stderr.contains("warning"), quiet.stderr)
    }
}
