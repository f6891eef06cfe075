import Foundation
import TestSupport
import XCTest

/// `calibrate` and `--precision int8` through the real binary on yolov3-tiny (real weights):
/// the file written once and the same bytes again, the commands that take the precision, and
/// the one-line refusals (no calibration file, another model's, no oneDNN).
final class Int8CommandTests: XCTestCase {
    func tiny() throws -> [String] {
        [try TestData.path("cfg/yolov3-tiny.cfg"), try TestData.path("yolov3-tiny.weights")]
    }

    /// Skips (fails in the full tier) when `--version` says int8 cannot run here.
    func requireInt8() throws {
        let version = try CLI.run(["--version"])
        let line = version.stdout.split(separator: "\n").first { $0.hasPrefix("int8: ") }.map(String.init) ?? "no int8 line"
        let loaded: Result<String, Unavailable> = line.hasPrefix("int8: oneDNN") ? .success(line) : .failure(Unavailable(text: line))
        _ = try TestTools.requireOneDNN(loaded)
    }

    struct Unavailable: Error, CustomStringConvertible {
        var text: String
        var description: String { text }
    }

    /// A calibration of yolov3-tiny from two photos, in `folder`.
    func calibrate(_ folder: URL, name: String = "tiny.calib", threads: String = "2", extra: [String] = []) throws -> (URL, CLIResult) {
        let file = folder.appendingPathComponent(name)
        let photos = try ["dog", "person"].map { try TestData.path("data/\($0).jpg") }
        let result = try CLI.run(["calibrate"] + tiny() + photos + ["-o", file.path, "--threads", threads] + extra)
        return (file, result)
    }

    func testCalibrateWritesTheSameFileOnceAndItsTable() throws {
        try requireInt8()
        let folder = try CLI.temporaryFolder(self)
        let (file, result) = try calibrate(folder)
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n")
        XCTAssertTrue(lines.first?.hasPrefix("layer  precision  low") == true, result.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("    0  f32") && $0.hasSuffix("the first convolution") }, result.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("   15  f32") && $0.hasSuffix("feeds the [yolo] layer 16") }, result.stdout)
        XCTAssertTrue(lines.last?.hasSuffix("convolutions int8, from 2 images") == true, result.stdout)
        let bytes = try Data(contentsOf: file)
        // Not replaced without --force; with it, one thread, the same bytes.
        let again = try calibrate(folder).1
        XCTAssertEqual(again.status, 2)
        XCTAssertTrue(again.stderr.contains("already exists (use --force to overwrite it)"), again.stderr)
        let forced = try calibrate(folder, threads: "1", extra: ["--force"]).1
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertEqual(try Data(contentsOf: file), bytes)
        // A .data file's train= list of the same photos gives the same file.
        let list = folder.appendingPathComponent("train.txt")
        try (try ["dog", "person"].map { try TestData.path("data/\($0).jpg") }.joined(separator: "\n") + "\n")
            .write(to: list, atomically: true, encoding: .utf8)
        let data = folder.appendingPathComponent("obj.data")
        try "classes=80\ntrain=\(list.path)\n".write(to: data, atomically: true, encoding: .utf8)
        let fromData = folder.appendingPathComponent("data.calib")
        let listed = try CLI.run(["calibrate"] + tiny() + ["--data", data.path, "-o", fromData.path])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertEqual(try Data(contentsOf: fromData), bytes)
        let both = try CLI.run(["calibrate"] + tiny() + [try TestData.path("data/dog.jpg"), "--data", data.path, "-o", fromData.path])
        XCTAssertEqual(both.status, 2)
        XCTAssertTrue(both.stderr.contains("give calibration images or --data, not both"), both.stderr)
        let entropy = try calibrate(folder, name: "entropy.calib", extra: ["--method", "entropy"])
        XCTAssertEqual(entropy.1.status, 0, entropy.1.stderr)
        XCTAssertNotEqual(try Data(contentsOf: entropy.0), bytes)
    }

    /// detect, map, benchmark, stream and summary --methods take the calibration; detect's
    /// int8 answers on 1 and 2 threads are the same.
    func testCommandsRunInt8() throws {
        try requireInt8()
        let folder = try CLI.temporaryFolder(self)
        let (calibration, made) = try calibrate(folder)
        XCTAssertEqual(made.status, 0, made.stderr)
        let int8 = ["--precision", "int8", "--calibration", calibration.path]
        let dog = try TestData.path("data/dog.jpg")
        let one = try CLI.run(["detect"] + tiny() + [dog, "--format", "json", "--threads", "1"] + int8)
        XCTAssertEqual(one.status, 0, one.stderr)
        XCTAssertTrue(one.stdout.contains("\"name\":\"dog\""), one.stdout)
        let two = try CLI.run(["detect"] + tiny() + [dog, "--format", "json", "--threads", "2"] + int8)
        XCTAssertEqual(Self.withoutTiming(two.stdout), Self.withoutTiming(one.stdout))

        let labels = folder.appendingPathComponent("set")
        try FileManager.default.createDirectory(at: labels, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: dog, toPath: labels.appendingPathComponent("dog.jpg").path)
        try "16 0.32 0.61 0.31 0.57\n".write(to: labels.appendingPathComponent("dog.txt"), atomically: true, encoding: .utf8)
        let data = folder.appendingPathComponent("set.data")
        try "classes=80\nnames=\(try TestData.path("data/coco.names"))\n".write(to: data, atomically: true, encoding: .utf8)
        let map = try CLI.run(["map", data.path] + tiny() + [labels.path, "--quiet"] + int8)
        XCTAssertEqual(map.status, 0, map.stderr)
        XCTAssertTrue(map.stdout.contains("class_id = 16, name = dog, ap = 100.00%"), map.stdout)

        let benchmark = try CLI.run(["benchmark"] + tiny() + ["--runs", "1", "--warmup", "0"] + int8)
        XCTAssertEqual(benchmark.status, 0, benchmark.stderr)
        XCTAssertTrue(benchmark.stdout.contains("precision int8"), benchmark.stdout)
        XCTAssertTrue(benchmark.stdout.contains("  int8  "), benchmark.stdout)

        let stream = folder.appendingPathComponent("frames.mjpeg")
        try Data(contentsOf: URL(fileURLWithPath: dog)).write(to: stream)
        let streamed = try CLI.run(["stream"] + tiny() + int8, stdin: stream)
        XCTAssertEqual(streamed.status, 0, streamed.stderr)
        XCTAssertTrue(streamed.stdout.contains("\"name\":\"dog\""), streamed.stdout)

        let summary = try CLI.run(["summary", try TestData.path("cfg/yolov3-tiny.cfg"), "--methods"] + int8)
        XCTAssertEqual(summary.status, 0, summary.stderr)
        let methods = summary.stdout.split(separator: "\n")
        XCTAssertTrue(methods.contains { $0.hasPrefix("    2  int8 ") }, summary.stdout)
        XCTAssertFalse(methods.contains { $0.hasPrefix("    0  int8 ") || $0.hasPrefix("   15  int8 ") || $0.hasPrefix("   22  int8 ") },
                       summary.stdout)
        XCTAssertTrue(methods.contains { $0.hasPrefix("total ") && $0.contains(" int8 layers") }, summary.stdout)
    }

    /// Each refusal is one line on stderr, status 2, never a crash.
    func testRefusalsAreOneLine() throws {
        let dog = try TestData.path("data/dog.jpg")
        let missing = try CLI.run(["detect"] + tiny() + [dog, "--precision", "int8"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("--precision int8 needs a calibration file: make one with `darknet-swift calibrate"),
                      missing.stderr)
        let folder = try CLI.temporaryFolder(self)
        let other = folder.appendingPathComponent("other.calib")
        try Self.calibrationText(cfgSHA256: String(repeating: "0", count: 64)).write(to: other, atomically: true, encoding: .utf8)
        let int8 = ["--precision", "int8", "--calibration", other.path]
        // Without oneDNN (a library name that does not exist): the refusal names what to install.
        let absent = try CLI.run(["detect"] + tiny() + [dog] + int8, environment: ["DARKNET_SWIFT_ONEDNN": "libdnnl-absent.so.9"])
        XCTAssertFalse(absent.signaled)
        XCTAssertEqual(absent.status, 2)
        XCTAssertEqual(absent.stderr, "darknet-swift: error: int8 cannot run: oneDNN is not installed (libdnnl-absent.so.9 "
                       + "(DARKNET_SWIFT_ONEDNN) not found): run tools/install-deps --int8 (Debian: apt-get install libdnnl2)\n")
        let version = try CLI.run(["--version"], environment: ["DARKNET_SWIFT_ONEDNN": "libdnnl-absent.so.9"])
        XCTAssertEqual(version.status, 0)
        XCTAssertTrue(version.stdout.contains("int8: unavailable: oneDNN is not installed"), version.stdout)
        try requireInt8()
        let wrong = try CLI.run(["detect"] + tiny() + [dog] + int8)
        XCTAssertEqual(wrong.status, 2)
        XCTAssertEqual(wrong.stderr.split(separator: "\n").count, 1, wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("other.calib was made for another cfg"), wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("make one for it with darknet-swift calibrate"), wrong.stderr)
    }

    /// On a CPU whose best is AVX2 (oneDNN told so), int8 runs on 7-bit activations and says so.
    func testWithoutVNNIInt8RunsOnFewerLevels() throws {
        try requireInt8()
        let avx2 = ["DNNL_MAX_CPU_ISA": "AVX2"]
        let version = try CLI.run(["--version"], environment: avx2)
        XCTAssertTrue(version.stdout.contains(", avx2, 128-level activations"), version.stdout)
        let folder = try CLI.temporaryFolder(self)
        let (calibration, made) = try calibrate(folder)
        XCTAssertEqual(made.status, 0, made.stderr)
        let result = try CLI.run(["detect"] + tiny() + [try TestData.path("data/dog.jpg"), "--precision", "int8",
                                                         "--calibration", calibration.path], environment: avx2)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("dog: "), result.stdout)
    }

    /// The README's int8 commands (comment lines separate them), run as written with bash in a
    /// folder holding `photos/`, `dog.jpg` and an `obj.data` whose labels are f32's boxes; the
    /// install line is only checked to be there.
    func testReadmeExamplesRun() throws {
        try requireInt8()
        let readme = try String(contentsOf: TestData.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try XCTUnwrap(readme.components(separatedBy: "\n## int8\n").dropFirst().first)
        var examples: [String] = []
        for line in section.components(separatedBy: "```")[1].split(separator: "\n").dropFirst() {
            if line.hasPrefix("#") { examples.append("") } else { examples[examples.count - 1] += line + "\n" }
        }
        XCTAssertEqual(examples.count, 4, "the README's int8 block changed: update this test\n\(section)")
        XCTAssertEqual(examples.first, "tools/install-deps --int8\n")

        let folder = try CLI.temporaryFolder(self)
        let photos = folder.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        for name in ["dog", "person"] {
            try FileManager.default.copyItem(atPath: try TestData.path("data/\(name).jpg"),
                                             toPath: photos.appendingPathComponent("\(name).jpg").path)
        }
        try FileManager.default.copyItem(atPath: try TestData.path("data/dog.jpg"), toPath: folder.appendingPathComponent("dog.jpg").path)
        let truth = try CLI.run(["detect"] + tiny() + [photos.path, "--save-labels-beside-images"])
        XCTAssertEqual(truth.status, 0, truth.stderr)
        let valid = folder.appendingPathComponent("valid.txt")
        try "photos/dog.jpg\nphotos/person.jpg\n".write(to: valid, atomically: true, encoding: .utf8)
        try "classes=80\nvalid=valid.txt\nnames=\(try TestData.path("data/coco.names"))\n"
            .write(to: folder.appendingPathComponent("obj.data"), atomically: true, encoding: .utf8)

        for example in examples.dropFirst() {
            let script = example.replacingOccurrences(of: "darknet-swift ", with: "\"$DARKNET_SWIFT\" ")
                .replacingOccurrences(of: "yolov3-tiny.cfg", with: "\"$CFG\"")
                .replacingOccurrences(of: "yolov3-tiny.weights", with: "\"$WEIGHTS\"")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-e", "-c", script]
            process.currentDirectoryURL = folder
            process.environment = ProcessInfo.processInfo.environment.merging(
                ["DARKNET_SWIFT": CLI.binary.path, "CFG": try tiny()[0], "WEIGHTS": try tiny()[1]]) { $1 }
            let output = folder.appendingPathComponent("output")
            try Data().write(to: output)
            process.standardOutput = try FileHandle(forWritingTo: output)
            process.standardError = process.standardOutput
            try process.run()
            process.waitUntilExit()
            let text = try String(contentsOf: output, encoding: .utf8)
            XCTAssertEqual(process.terminationStatus, 0, "\(example)\n\(text)")
            if example.contains(" detect ") { XCTAssertTrue(text.contains("dog: "), text) }
            if example.contains(" summary ") { XCTAssertTrue(text.contains(" int8 layers"), text) }
            if example.contains(" map ") { XCTAssertTrue(text.contains("mean average precision (mAP@0.50)"), text) }
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("yolov3-tiny.calib").path))
    }

    /// `detect --format json` without its timing fields.
    static func withoutTiming(_ text: String) -> String {
        text.replacingOccurrences(of: "\"timing\":\\{[^}]*\\}", with: "", options: .regularExpression)
    }

    /// A calibration file for yolov3-tiny's layer 2 whose cfg checksum is `cfgSHA256`.
    static func calibrationText(cfgSHA256: String) -> String {
        """
        {"format": "darknet-swift calibration", "version": 1,
         "cfg": {"file": "yolov3-tiny.cfg", "sha256": "\(cfgSHA256)"},
         "weights": {"file": "yolov3-tiny.weights", "sha256": "\(String(repeating: "1", count: 64))"},
         "input": {"width": 416, "height": 416}, "method": "percentile", "percentile": 99.99, "images": 1, "errorBound": 0.05,
         "layers": [{"layer": 2, "precision": "int8", "low": -1, "high": 7, "min": -1, "max": 8, "scale": 0.031372549,
                     "zeroPoint": 32, "error": 0.01}]}
        """
    }
}
