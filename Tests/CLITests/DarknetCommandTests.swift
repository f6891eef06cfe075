import Foundation
import TestSupport
import XCTest

/// Issue #51 item 1: `detector test|map|valid|demo DATA CFG WEIGHTS` with AlexeyAB's flags,
/// through the binary. His outputs are in Fixtures/darknet (`DarknetOracle`).
final class DarknetCommandTests: XCTestCase {
    private func cocoData(in folder: URL) throws -> String {
        let data = folder.appendingPathComponent("coco.data")
        try "classes= 80\nnames = \(try TestData.path("data/coco.names"))\n".write(to: data, atomically: true, encoding: .utf8)
        return data.path
    }

    /// His everyday line: his -ext_output lines on stdout (the layout of his, numbers within a
    /// tolerance: his binary decodes JPEGs with stb_image), his -out JSON, predictions.jpg in
    /// the current folder (replaced on the next run, as his), and -i / -dont_show taken.
    func testDetectorTestRunsHisLine() throws {
        let folder = try CLI.temporaryFolder(self)
        let dog = folder.appendingPathComponent("dog.jpg")
        try FileManager.default.copyItem(atPath: try TestData.path("data/dog.jpg"), toPath: dog.path)
        let line = ["detector", "test", try cocoData(in: folder)] + (try CLI.tinyDetector()) + ["dog.jpg", "-thresh", "0.25",
                    "-dont_show", "-ext_output", "-out", "result.json", "-i", "0", "--stretch"]
        let result = try DarknetOracle.run(line, in: folder)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("note: -i 0 ignored: his GPU index"), result.stderr)
        let expected = try DarknetOracle.text("test-ext-dog.txt")
        let ours = result.stdout.replacingOccurrences(of: "^dog.jpg:", with: "data/dog.jpg:", options: .regularExpression)
        XCTAssertEqual(DarknetOracle.masked(ours), DarknetOracle.masked(expected), result.stdout)
        let words = { (text: String) in text.split(separator: "\n").dropFirst().map { $0.prefix { $0 != ":" } } }
        XCTAssertEqual(words(ours), words(expected), "the same classes in his order (left edges, best class first)")
        for (a, b) in zip(DarknetOracle.numbers(ours).dropFirst(), DarknetOracle.numbers(expected).dropFirst()) {
            XCTAssertEqual(a, b, accuracy: 3, "\(ours)")
        }
        let json = try String(contentsOf: folder.appendingPathComponent("result.json"), encoding: .utf8)
        XCTAssertEqual(DarknetOracle.masked(json).replacingOccurrences(of: "dog.jpg", with: "data/dog.jpg"),
                       DarknetOracle.masked(try DarknetOracle.text("test-out-dog.json")))
        let predictions = folder.appendingPathComponent("predictions.jpg")
        XCTAssertEqual(Array(try Data(contentsOf: predictions).prefix(3)), [0xFF, 0xD8, 0xFF])
        let again = try DarknetOracle.run(line + ["--force"], in: folder)
        XCTAssertEqual(again.status, 0, "result.json needs --force, predictions.jpg is his to replace: \(again.stderr)")
        let refused = try DarknetOracle.run(line, in: folder)
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.stderr.contains("result.json already exists (use --force to overwrite it)"), refused.stderr)
    }

    /// Without an image his `detector test` reads paths from stdin (no prompt when stdin is
    /// not a terminal); -save_labels writes each label file beside its image, and an existing
    /// one (ground truth?) is not replaced without --force.
    func testDetectorTestReadsPathsFromStdinAndSavesLabelsBesideTheImages() throws {
        let folder = try DarknetOracle.labelledSet(self, photos: ["dog", "eagle"], labels: false)
        let list = folder.appendingPathComponent("valid.txt")
        let line = ["detector", "test", "set.data"] + (try CLI.tinyDetector()) + ["-dont_show", "-save_labels"]
        let result = try DarknetOracle.run(line, in: folder, stdin: list)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stdout.contains("Enter Image Path"), result.stdout)
        XCTAssertTrue(result.stdout.hasPrefix("set/dog.jpg: Predicted in "), result.stdout)
        XCTAssertTrue(result.stdout.contains("\nset/eagle.jpg: Predicted in "), result.stdout)
        let labels = try String(contentsOf: folder.appendingPathComponent("set/dog.txt"), encoding: .utf8)
        XCTAssertTrue(labels.hasPrefix("16 0.3"), labels)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("set/eagle.txt").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("predictions.jpg").path),
                       "his file is one image's; a list writes none")
        let again = try DarknetOracle.run(line, in: folder, stdin: list)
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("set/dog.txt already exists (use --force to overwrite it"), again.stderr)
    }

    /// On a terminal, his prompt before each path read, and Ctrl-D ends the run.
    func testDetectorTestPromptsOnATerminal() throws {
        let folder = try DarknetOracle.labelledSet(self, photos: ["eagle"], labels: false)
        let typed = folder.appendingPathComponent("typed")
        try Data("set/eagle.jpg\n\u{4}".utf8).write(to: typed)
        let line = (["detector", "test", "set.data"] + (try CLI.tinyDetector()) + ["-dont_show"]).map { "'\($0)'" }.joined(separator: " ")
        // script(1) runs the command on a pseudo-terminal, which is then its stdin.
        let result = try CLI.run(executable: URL(fileURLWithPath: "/usr/bin/script"),
                                 ["-qec", "cd '\(folder.path)' && '\(CLI.binary.path)' \(line)", "/dev/null"], stdin: typed, timeout: 600)
        XCTAssertEqual(result.status, 0, result.stdout)
        XCTAssertEqual(result.stdout.components(separatedBy: "Enter Image Path: ").count, 3, result.stdout)
        XCTAssertTrue(result.stdout.contains("Enter Image Path: set/eagle.jpg: Predicted in "), result.stdout)
        XCTAssertTrue(result.stdout.contains("bird: "), result.stdout)
    }

    /// A flag his subcommand reads but that cannot be honoured is refused by name; one he reads
    /// for another subcommand only is ignored with a note; an unknown one is refused; his
    /// commands outside inference are refused; the shapes need DATA CFG WEIGHTS.
    func testFlagsAreTranslatedNotedOrRefusedByName() throws {
        let folder = try CLI.temporaryFolder(self)
        let data = try cocoData(in: folder)
        let model = try CLI.tinyDetector()
        let dog = try TestData.path("data/dog.jpg")
        let cases: [([String], String)] = [
            (["test", data] + model + [dog, "-benchmark_layers"], "detector test: -benchmark_layers is not supported: per-layer times are darknet-swift benchmark"),
            (["test", data] + model + [dog, "-thresh"], "detector test: -thresh needs a value"),
            (["test", data] + model + [dog, "-foo"], "detector test: unknown flag '-foo'"),
            (["test", data] + model + [dog, "-thresh", "2"], "--thresh must be in 0...1, got 2.0"),
            (["demo", data] + model + ["video.mp4", "-json_port", "8070", "-mjpeg_port", "8090"],
             "--http given with different values (8070, 8090): one port serves /mjpeg and /json"),
            (["demo", data] + model + ["video.mp4", "-mjpeg_port", "99999"], "--http 99999: expected PORT or HOST:PORT"),
            (["demo", data] + model + ["video.mp4", "-http_post_host", "h"], "detector demo: -http_post_host is not supported"),
            (["train", data] + model, "detector train is not supported: darknet-swift runs trained models"),
            (["test", data], "detector test needs DATA CFG WEIGHTS"),
            (["tset", data] + model, "detector tset: no such subcommand"),
        ]
        for (words, message) in cases {
            let result = try CLI.run(["detector"] + words)
            XCTAssertEqual(result.status, 2, "\(words): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
            XCTAssertTrue(result.stderr.contains(message), "\(words): \(result.stderr)")
        }
        let noted = try DarknetOracle.run(["detector", "test", data] + model + [dog, "-points", "11", "-thresh", "0.6", "--quiet"], in: folder)
        XCTAssertEqual(noted.status, 0, noted.stderr)
        XCTAssertTrue(noted.stderr.contains("note: -points 11 ignored: his detector test does not read it either"), noted.stderr)
        XCTAssertEqual(noted.stdout.split(separator: "\n").count, 2, "one box above 0.6: \(noted.stdout)")
    }

    /// `detector demo` runs `stream` on his source: a video's frames detected, one JSON line
    /// each, -out_filename the annotated video of as many frames; the .data's names label them.
    func testDemoRunsStreamOnHisVideo() throws {
        let folder = try CLI.temporaryFolder(self)
        let video = folder.appendingPathComponent("pan.mp4")
        try TestVideos.pan(video, photo: "dog", frames: 4, step: 16)
        let annotated = folder.appendingPathComponent("out.avi")
        let result = try CLI.run(["detector", "demo", try cocoData(in: folder)] + (try CLI.tinyDetector())
                                 + [video.path, "-out_filename", annotated.path, "-dont_show", "-thresh", "0.3"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = try CLI.objects(result.stdout)
        XCTAssertEqual(lines.map { $0["frame"] as? Int }, [0, 1, 2, 3])
        let names = lines.flatMap { ($0["detections"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String } }
        XCTAssertTrue(names.contains("dog"), "\(names)")
        XCTAssertEqual(try TestVideos.probe(annotated.path).frames, 4)
    }

    /// A native command given darknet's spelling points at the native option, and at `detector`.
    func testNativeCommandsPointAtTheOptionAndAtDetector() throws {
        let result = try CLI.run(["detect"] + (try CLI.tinyDetector()) + [try TestData.path("data/dog.jpg"), "-out", "r.json"])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("use --darknet-json OUT, or darknet-swift detector test|map|valid takes his flags"), result.stderr)
    }
}
