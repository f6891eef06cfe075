import Foundation
import TestSupport
import XCTest

/// Issue #51 items 2, 5 and 7: `.data` files on the native commands, the threshold the cfg's
/// darknet uses by default, and no class numbers printed as names without a word.
final class DataFileCommandTests: XCTestCase {
    private var fixtures: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("DarknetTests/Fixtures/alexeyab")
    }

    /// tiny-v4 (an AlexeyAB cfg, 2 classes) with synthetic weights, in `folder`.
    private func tinyV4(in folder: URL) throws -> [String] {
        let weights = folder.appendingPathComponent("tiny-v4.weights").path
        let result = try CLI.run(["synth-weights", fixtures.appendingPathComponent("tiny-v4.cfg").path, weights])
        XCTAssertEqual(result.status, 0, result.stderr)
        return [fixtures.appendingPathComponent("tiny-v4.cfg").path, weights]
    }

    private func write(_ text: String, _ name: String, in folder: URL) throws -> String {
        let url = folder.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// `detect --data`: names from its names= (relative to the current folder, as darknet opens
    /// it); a classes= the model does not have is a warning (his detector test goes on); a bad
    /// line is an error naming file and line; a names= missing where darknet looks says where it is.
    func testDetectReadsTheDataFile() throws {
        let folder = try CLI.temporaryFolder(self)
        let model = try tinyV4(in: folder)
        let photo = fixtures.appendingPathComponent("scene-120x80.png").path
        _ = try write("cat\ndog\n", "obj.names", in: folder)
        _ = try write("classes = 2\nnames = obj.names\n# a comment\n", "obj.data", in: folder)
        let result = try DarknetOracle.run(["detect"] + model + [photo, "--data", "obj.data", "--thresh", "0.3", "--format", "jsonl"], in: folder)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "", "no warning: the names are the model's")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let names = Set((object["detections"] as! [[String: Any]]).map { $0["name"] as! String })
        XCTAssertFalse(names.isEmpty)
        XCTAssertTrue(names.isSubset(of: ["cat", "dog"]), "\(names)")

        _ = try write("classes=3\nnames=obj.names\n", "three.data", in: folder)
        let three = try DarknetOracle.run(["detect"] + model + [photo, "--data", "three.data", "--quiet"], in: folder)
        XCTAssertEqual(three.status, 0, three.stderr)
        XCTAssertTrue(three.stderr.contains("warning: three.data:1 'classes': classes=3 but the model has 2 classes"), three.stderr)

        _ = try write("classes=two\n", "bad.data", in: folder)
        let bad = try DarknetOracle.run(["detect"] + model + [photo, "--data", "bad.data"], in: folder)
        XCTAssertEqual(bad.status, 2)
        XCTAssertEqual(bad.stderr, "darknet-swift: error: bad.data:1 'classes': 'two' is not a whole number of classes above 0\n")

        let sub = folder.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        _ = try write("cat\ndog\n", "obj.names", in: sub)
        _ = try write("classes=2\nnames=obj.names\n", "obj.data", in: sub)
        try FileManager.default.removeItem(at: folder.appendingPathComponent("obj.names"))
        let elsewhere = try DarknetOracle.run(["detect"] + model + [photo, "--data", "data/obj.data"], in: folder)
        XCTAssertEqual(elsewhere.status, 2)
        XCTAssertTrue(elsewhere.stderr.contains("data/obj.data:2 'names': obj.names: no such file (darknet opens it relative to the current folder"),
                      elsewhere.stderr)
        XCTAssertTrue(elsewhere.stderr.contains("there is one at data/obj.names"), elsewhere.stderr)
    }

    /// `classify --data`: labels from names= (else labels=); a classes= that is not the
    /// network's outputs is an error, as his `classifier predict`.
    func testClassifyReadsTheDataFile() throws {
        let folder = try CLI.temporaryFolder(self)
        let (cfg, weights) = try CLI.tinyClassifier(in: folder)
        let photo = fixtures.appendingPathComponent("scene-120x80.png").path
        _ = try write("red\ngreen\nblue\n", "three.labels", in: folder)
        let data = try write("classes=3\nlabels=three.labels\n", "c.data", in: folder)
        let result = try DarknetOracle.run(["classify", cfg, weights, photo, "--data", data], in: folder)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("66.52%: red"), result.stdout)
        let wrong = try write("classes=4\nlabels=three.labels\n", "four.data", in: folder)
        let refused = try DarknetOracle.run(["classify", cfg, weights, photo, "--data", wrong], in: folder)
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.stderr.contains("four.data:1 'classes': classes=4 but the model has 3 classes"), refused.stderr)
    }

    /// Without --thresh: 0.25 for an AlexeyAB cfg (his detector test's), 0.5 for pjreddie's;
    /// the JSON says which and why, and the help says both.
    func testTheDefaultThresholdIsTheCfgsDarknets() throws {
        let folder = try CLI.temporaryFolder(self)
        let model = try tinyV4(in: folder)
        let photo = fixtures.appendingPathComponent("scene-120x80.png").path
        let names = try write("a\nb\n", "two.names", in: folder)
        let json = { (extra: [String]) throws -> [String: Any] in
            let result = try CLI.run(["detect"] + model + [photo, "--names", names, "--format", "jsonl"] + extra)
            XCTAssertEqual(result.status, 0, result.stderr)
            return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        }
        let alexeyAB = try json([])
        let threshold = try XCTUnwrap(alexeyAB["threshold"] as? [String: Any])
        XCTAssertEqual(threshold["value"] as? Double, 0.25)
        XCTAssertEqual(threshold["reason"] as? String, "an AlexeyAB cfg (key 'groups' at line 34): his detector test's -thresh default")
        let confidences = (alexeyAB["detections"] as! [[String: Any]]).map { $0["confidence"] as! Double }
        XCTAssertTrue(confidences.allSatisfy { $0 > 0.25 })
        XCTAssertEqual((try json(["--thresh", "0.25"])["detections"] as? [Any])?.count, confidences.count)
        let help = try CLI.run(["detect", "--help"]).stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        XCTAssertTrue(help.contains("0.25 for AlexeyAB-style cfgs, his detector test's; 0.5 for pjreddie's, darknet detect's"), help)
    }

    /// An 80-class model whose coco.names is nowhere near: a warning naming where it looked;
    /// a names file that does not fit warns in `stream` too.
    func testNoClassNumbersPrintedAsNamesWithoutAWord() throws {
        let folder = try CLI.temporaryFolder(self)
        let cfg = folder.appendingPathComponent("yolov3-tiny.cfg").path
        try FileManager.default.copyItem(atPath: try TestData.path("cfg/yolov3-tiny.cfg"), toPath: cfg)
        let weights = folder.appendingPathComponent("yolov3-tiny.weights").path
        try FileManager.default.createSymbolicLink(atPath: weights, withDestinationPath: try TestData.path("yolov3-tiny.weights"))
        let result = try CLI.run(["detect", cfg, weights, try TestData.path("data/dog.jpg")])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("\n16: 56%"), result.stdout)
        XCTAssertTrue(result.stderr.contains("warning: an 80-class model without --names or --data, and no coco.names at \(folder.path)/coco.names, "),
                      result.stderr)
        XCTAssertTrue(result.stderr.contains("classes print as numbers"), result.stderr)

        let names = try write("a\nb\n", "two.names", in: folder)
        let frames = folder.appendingPathComponent("frames.mjpeg")
        try Data(contentsOf: URL(fileURLWithPath: try TestData.path("data/dog.jpg"))).write(to: frames)
        let stream = try CLI.run(["stream", cfg, weights, "--names", names], stdin: frames)
        XCTAssertEqual(stream.status, 0, stream.stderr)
        XCTAssertTrue(stream.stderr.contains("warning: \(names) has 2 names but the model has 80 classes"), stream.stderr)
    }
}
