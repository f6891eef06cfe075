import Foundation
import TestSupport
import XCTest

/// Issue #31 item 9 and the model-file frictions: the wrong kind of model for the command,
/// swapped cfg and weights, one wording for a missing file, names files that do not match.
final class ModelFilesTests: XCTestCase {
    func testWrongModelForTheCommand() throws {
        let folder = try CLI.temporaryFolder(self)
        let dog = try TestData.path("data/dog.jpg")
        let classify = try CLI.run(["classify"] + CLI.tinyDetector() + [dog])
        XCTAssertEqual(classify.status, 2, classify.stderr)
        XCTAssertEqual(classify.stdout, "")
        XCTAssertTrue(classify.stderr.hasPrefix("darknet-swift: error: \(try TestData.path("cfg/yolov3-tiny.cfg")): "), classify.stderr)
        XCTAssertTrue(classify.stderr.contains("a detector, not a classifier (use detect)"), classify.stderr)

        let (cfg, weights) = try CLI.tinyClassifier(in: folder)
        let detect = try CLI.run(["detect", cfg, weights, dog])
        XCTAssertEqual(detect.status, 2, detect.stderr)
        XCTAssertEqual(detect.stdout, "")
        XCTAssertEqual(detect.stderr, "darknet-swift: error: \(cfg): no [yolo] or [region] layer: not a detector (use classify)\n")
    }

    /// A cfg file over the 4 MiB limit is refused by its size before it is read (a sparse
    /// 1 TiB file: reading it would not end).
    func testHugeCfgIsRefusedUnread() throws {
        let cfg = try CLI.temporaryFolder(self).appendingPathComponent("huge.cfg").path
        XCTAssertTrue(FileManager.default.createFile(atPath: cfg, contents: Data("[net]\nwidth=416\n".utf8)))
        XCTAssertEqual(truncate(cfg, 1 << 40), 0)
        let result = try CLI.run(["summary", cfg], timeout: 60)
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertEqual(result.stderr, "darknet-swift: error: \(cfg): cfg is 1099511627776 bytes, over the 4194304-byte limit\n")
    }

    func testSwappedCfgAndWeights() throws {
        let (cfg, weights) = (try TestData.path("cfg/yolov3-tiny.cfg"), try TestData.path("yolov3-tiny.weights"))
        let dog = try TestData.path("data/dog.jpg")
        let expected = "darknet-swift: error: cfg and weights seem swapped: \(weights) is a weights file and \(cfg) a cfg\n"
        for arguments in [["detect", weights, cfg, dog], ["benchmark", weights, cfg], ["stream", weights, cfg]] {
            let result = try CLI.run(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments[0]): \(result.stderr)")
            XCTAssertEqual(result.stderr, expected, arguments[0])
        }
        let summary = try CLI.run(["summary", weights])
        XCTAssertEqual(summary.status, 2)
        XCTAssertEqual(summary.stderr, "darknet-swift: error: \(weights): this is a Darknet weights file, not a cfg\n")
    }

    func testMissingFilesAreWordedOneWay() throws {
        let folder = try CLI.temporaryFolder(self)
        let missing = folder.appendingPathComponent("missing").path
        let cfg = try TestData.path("cfg/yolov3-tiny.cfg"), weights = try TestData.path("yolov3-tiny.weights")
        let dog = try TestData.path("data/dog.jpg")
        let (classifierCfg, classifierWeights) = try CLI.tinyClassifier(in: folder)
        let cases: [([String], Int32, String)] = [
            (["detect", missing, weights, dog], 2, "darknet-swift: error: \(missing): no such file\n"),
            (["detect", cfg, missing, dog], 2, "darknet-swift: error: \(missing): no such file\n"),
            (["detect", cfg, weights, dog, "--names", missing], 2, "darknet-swift: error: \(missing): no such file\n"),
            (["detect", cfg, weights, "--list", missing], 2, "darknet-swift: error: \(missing): no such file\n"),
            (["detect", cfg, weights, missing, "--quiet"], 1, "darknet-swift: \(missing): no such file\n"),
            (["classify", classifierCfg, classifierWeights, missing, "--quiet"], 1, "darknet-swift: \(missing): no such file\n"),
            (["classify", classifierCfg, missing, dog], 2, "darknet-swift: error: \(missing): no such file\n"),
            (["benchmark", cfg, missing], 2, "darknet-swift: error: \(missing): no such file\n"),
        ]
        for (arguments, status, message) in cases {
            let result = try CLI.run(arguments)
            XCTAssertEqual(result.status, status, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderr, message, "\(arguments)")
        }
    }

    /// A names file with fewer or more names than the model has classes: a warning in detect
    /// and classify alike (class numbers stand in for missing names); ANSI escapes in names
    /// are shown escaped in text output.
    func testNamesCountIsAWarningAndEscapesAreEscaped() throws {
        let folder = try CLI.temporaryFolder(self)
        let dog = try TestData.path("data/dog.jpg")
        var coco = try String(contentsOfFile: try TestData.path("data/coco.names"), encoding: .utf8).split(separator: "\n").map(String.init)
        coco[16] = "\u{1B}[31mdog\u{1B}[0m"
        let names = folder.appendingPathComponent("short.names")
        try coco.prefix(20).joined(separator: "\n").write(to: names, atomically: true, encoding: .utf8)
        let detect = try CLI.run(["detect"] + CLI.tinyDetector() + [dog, "--names", names.path])
        XCTAssertEqual(detect.status, 0, detect.stderr)
        XCTAssertEqual(detect.stderr, "darknet-swift: warning: \(names.path) has 20 names but the model has 80 classes\n")
        let lines = detect.stdout.split(separator: "\n").dropFirst().map { String($0.split(separator: "\t")[0]) }.sorted()
        XCTAssertEqual(lines, ["\\x1B[31mdog\\x1B[0m: 56%", "bicycle: 59%", "car: 52%", "car: 62%", "truck: 55%"], detect.stdout)

        let (cfg, weights) = try CLI.tinyClassifier(in: folder)
        let labels = folder.appendingPathComponent("two.names")
        try "cat\n\u{1B}[2Jdog\n".write(to: labels, atomically: true, encoding: .utf8)
        let classify = try CLI.run(["classify", cfg, weights, dog, "--labels", labels.path])
        XCTAssertEqual(classify.status, 0, classify.stderr)
        XCTAssertEqual(classify.stderr, "darknet-swift: warning: \(labels.path) has 2 names but the model has 3 classes\n")
        XCTAssertEqual(classify.stdout, "\(dog):\n66.52%: cat\n24.47%: \\x1B[2Jdog\n 9.00%: 2\n")
    }
}
