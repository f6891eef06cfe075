import Foundation
import TestSupport
import XCTest

/// Issue #31 items 4, 5 and 6: one exit-status rule for every command (0 done, 1 some inputs
/// failed, 2 usage or model error), darknet's single-dash spellings refused with a hint (never
/// the help and exit 0), and `--strict`'s error not calling itself a warning.
final class ExitStatusTests: XCTestCase {
    func testDarknetSpellingsFailWithAHint() throws {
        let dog = try TestData.path("data/dog.jpg")
        let cases: [([String], String)] = [
            (["-thresh", "0.3"], "did you mean --thresh?"),
            (["-dont_show"], "-dont_show"),
            (["-ext_output"], "-ext_output"),
            (["-out", "result.json"], "use --darknet-json OUT"),
            (["-letter_box"], "did you mean --letterbox?"),
        ]
        for (extra, hint) in cases {
            let result = try CLI.run(["detect"] + CLI.tinyDetector() + [dog] + extra)
            XCTAssertEqual(result.status, 2, "\(extra): \(result.stderr)")
            XCTAssertEqual(result.stdout, "", "\(extra): no help, no detections")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
            XCTAssertTrue(result.stderr.contains(hint), "\(extra): \(result.stderr)")
        }
        let summary = try CLI.run(["summary", try TestData.path("cfg/yolov3-tiny.cfg"), "-size", "416"])
        XCTAssertEqual(summary.status, 2, summary.stderr)
        XCTAssertTrue(summary.stderr.contains("did you mean --size?"), summary.stderr)
        // A dash and a digit is a number, not darknet's spelling (ArgumentParser's own error).
        let negative = try CLI.run(["detect"] + CLI.tinyDetector() + [dog, "--thresh", "-0.5"])
        XCTAssertEqual(negative.status, 2)
        XCTAssertFalse(negative.stderr.contains("darknet's spelling"), negative.stderr)
    }

    /// The tiny classifier and yolov3-tiny, each with a missing file, a bad option and `--strict`
    /// on an unknown key: status 2 from every command.
    func testUsageAndModelErrorsAreTwoForEveryCommand() throws {
        let folder = try CLI.temporaryFolder(self)
        let (classifierCfg, classifierWeights) = try CLI.tinyClassifier(in: folder)
        let detectorCfg = try TestData.path("cfg/yolov3-tiny.cfg"), weights = try TestData.path("yolov3-tiny.weights")
        let dog = try TestData.path("data/dog.jpg")
        let extra = folder.appendingPathComponent("extra.cfg")
        try (try String(contentsOfFile: detectorCfg, encoding: .utf8)).replacingOccurrences(of: "[net]\n", with: "[net]\nsparkle=1\n")
            .write(to: extra, atomically: true, encoding: .utf8)
        let missing = folder.appendingPathComponent("missing.cfg").path
        let commands: [(name: String, missingModel: [String], badOption: [String], strict: [String])] = [
            ("detect", ["detect", missing, weights, dog], ["detect", detectorCfg, weights, dog, "--nms", "7"],
             ["detect", extra.path, weights, dog, "--strict"]),
            ("stream", ["stream", missing, weights], ["stream", detectorCfg, weights, "--raw", "x"],
             ["stream", extra.path, weights, "--strict"]),
            ("classify", ["classify", missing, classifierWeights, dog], ["classify", classifierCfg, classifierWeights, dog, "--top", "0"],
             ["classify", extra.path, weights, dog, "--strict"]),
            ("summary", ["summary", missing], ["summary", detectorCfg, "--conv-algorithm", "fast"], ["summary", extra.path, "--strict"]),
            ("benchmark", ["benchmark", missing], ["benchmark", detectorCfg, "--runs", "0"],
             ["benchmark", extra.path, "--strict", "--runs", "1", "--warmup", "0", "--size", "64"]),
        ]
        for command in commands {
            let model = try CLI.run(command.missingModel)
            XCTAssertEqual(model.status, 2, "\(command.name), missing cfg: \(model.stderr)")
            XCTAssertEqual(model.stderr, "darknet-swift: error: \(missing): no such file\n", command.name)
            let option = try CLI.run(command.badOption)
            XCTAssertEqual(option.status, 2, "\(command.name), bad option: \(option.stderr)")
            if command.name == "stream" { continue }  // stream's --strict is not mine to add
            let strict = try CLI.run(command.strict)
            XCTAssertEqual(strict.status, 2, "\(command.name) --strict: \(strict.stderr)")
            XCTAssertEqual(strict.stderr, "darknet-swift: error: \(extra.path):2 [net] 'sparkle': unknown key 'sparkle' in [net] (--strict)\n",
                           command.name)
        }
    }

    /// A classify input that fails is 1 (the others still printed), as in detect.
    func testAFailedInputIsOne() throws {
        let folder = try CLI.temporaryFolder(self)
        let (cfg, weights) = try CLI.tinyClassifier(in: folder)
        let bad = folder.appendingPathComponent("bad.jpg")
        try Data("hello".utf8).write(to: bad)
        let result = try CLI.run(["classify", cfg, weights, bad.path, try TestData.path("data/dog.jpg")])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stdout.contains("66.52%: 0"), result.stdout)
    }
}
