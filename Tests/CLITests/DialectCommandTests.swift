import Foundation
import XCTest

/// What the cfg decides, through the real binary: `synth-weights` writes the engine's
/// synthetic weights; `detect`'s JSON says how each image was fitted and suppressed, and why;
/// `--letterbox` / `--stretch` override the cfg. Uses the AlexeyAB-dialect fixture cfgs of
/// Tests/DarknetTests/Fixtures/alexeyab (whose answers AlexeyABGoldenTests checks).
final class DialectCommandTests: XCTestCase {
    private var fixtures: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("DarknetTests/Fixtures/alexeyab")
    }

    private func synthesize(_ name: String, into folder: URL) throws -> (cfg: String, weights: String) {
        let cfg = fixtures.appendingPathComponent("\(name).cfg").path
        let weights = folder.appendingPathComponent("\(name).weights").path
        let result = try CLI.run(["synth-weights", cfg, weights])
        XCTAssertEqual(result.status, 0, result.stderr)
        return (cfg, weights)
    }

    func testSynthWeightsWritesTheGeneratorsBytesAndKeepsExistingFiles() throws {
        let folder = try CLI.temporaryFolder(self)
        let (cfg, weights) = try synthesize("tiny-v4", into: folder)
        let golden = try JSONSerialization.jsonObject(with: Data(contentsOf: fixtures.appendingPathComponent("tiny-v4.json"))) as? [String: Any]
        let checksum = try XCTUnwrap(golden?["weights_fnv1a64"] as? String)
        let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: weights)[.size] as? Int)
        let again = try CLI.run(["synth-weights", cfg, weights])
        XCTAssertEqual(again.status, 2)
        XCTAssertTrue(again.stderr.contains("already exists (use --force to overwrite it)"), again.stderr)
        let forced = try CLI.run(["synth-weights", cfg, weights, "--force"])
        XCTAssertEqual(forced.stdout, "\(weights): \(size) bytes, seed 1, FNV-1a 64 \(checksum)\n")
        let other = try CLI.run(["synth-weights", cfg, weights, "--force", "--seed", "2"])
        XCTAssertFalse(other.stdout.contains(checksum), "another seed, other bytes")
    }

    private func jsonl(_ arguments: [String]) throws -> [String: Any] {
        let result = try CLI.run(["detect"] + arguments + ["--format", "jsonl", "--quiet", "--names", namesFile()])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    private func namesFile() throws -> String {
        let url = try CLI.temporaryFolder(self).appendingPathComponent("two.names")
        try "a\nb\n".write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    func testJSONSaysTheFittingAndTheNMSAndWhy() throws {
        let folder = try CLI.temporaryFolder(self)
        let photo = fixtures.appendingPathComponent("scene-120x80.png").path
        let (tiny, tinyWeights) = try synthesize("tiny-v4", into: folder)
        let stretched = try jsonl([tiny, tinyWeights, photo, "--thresh", "0.34"])
        XCTAssertEqual(stretched["fitting"] as? [String: String],
                       ["mapping": "stretch", "reason": "no letter_box in an AlexeyAB cfg (key 'groups' at line 34): detector test resizes"])
        XCTAssertEqual(stretched["nms"] as? [String: String], ["kind": "greedynms", "reason": "nms_kind of the last [yolo] (layer 19, line 129)"])
        let forced = try jsonl([tiny, tinyWeights, photo, "--thresh", "0.34", "--letterbox"])
        XCTAssertEqual(forced["fitting"] as? [String: String], ["mapping": "letterbox", "reason": "chosen by the caller"])
        XCTAssertNotEqual((forced["detections"] as? [Any])?.count, 0)
        XCTAssertNotEqual(String(describing: forced["detections"]), String(describing: stretched["detections"]),
                          "the fitting changes the answers")
        let agnostic = try jsonl([tiny, tinyWeights, photo, "--thresh", "0.34", "--nms-mode", "agnostic"])
        XCTAssertEqual(agnostic["nms"] as? [String: String], ["kind": "agnostic", "reason": "--nms-mode agnostic"])

        let (csp, cspWeights) = try synthesize("csp", into: folder)
        let letterboxed = try jsonl([csp, cspWeights, photo, "--thresh", "0.3"])
        XCTAssertEqual(letterboxed["fitting"] as? [String: String], ["mapping": "letterbox", "reason": "[net] letter_box=1 at line 7"])
        XCTAssertEqual((letterboxed["nms"] as? [String: String])?["kind"], "diounms (beta_nms 0.6)")
    }

    /// `--hier-thresh` (darknet's `-hier`) sets how deep a pjreddie cfg's class tree goes:
    /// Fixtures/zoo6-tree.cfg's boxes stop at the tree's first two levels at 0.5 on these weights
    /// and reach its leaves at 0.05 (ClassTreeGoldenTests checks both against darknet).
    func testHierThreshChoosesHowDeepTheClassTreeGoes() throws {
        let folder = try CLI.temporaryFolder(self)
        let cfg = fixtures.deletingLastPathComponent().appendingPathComponent("zoo6-tree.cfg").path
        let weights = folder.appendingPathComponent("tree.weights").path
        XCTAssertEqual(try CLI.run(["synth-weights", cfg, weights]).status, 0)
        let names = folder.appendingPathComponent("tree.names")
        try (0..<14).map { "c\($0)" }.joined(separator: "\n").write(to: names, atomically: true, encoding: .utf8)
        let photo = fixtures.appendingPathComponent("scene-120x80.png").path
        func classes(_ hier: String) throws -> Set<Int> {
            let result = try CLI.run(["detect", cfg, weights, photo, "--thresh", "0.55", "--hier-thresh", hier,
                                      "--format", "jsonl", "--quiet", "--names", names.path])
            XCTAssertEqual(result.status, 0, result.stderr)
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            return Set((json["detections"] as? [[String: Any]] ?? []).compactMap { $0["classId"] as? Int })
        }
        let shallow = try classes("0.5"), deep = try classes("0.05")
        XCTAssertFalse(shallow.isEmpty)
        XCTAssertTrue(shallow.isSubset(of: [0, 1, 2, 3]), "the first two levels: \(shallow)")
        XCTAssertTrue(deep.contains { [6, 8, 13].contains($0) }, "leaves: \(deep)")
        let bad = try CLI.run(["detect", cfg, weights, photo, "--hier-thresh", "2"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("--hier-thresh must be in 0...1, got 2.0"), bad.stderr)
    }
}
