import Foundation
import TestSupport
import XCTest

/// Issue #31 item 8: images, cfgs and weights that are pipes or FIFOs are read by streaming
/// (`<(cat dog.jpg)`, `/dev/stdin`), and `-` is one image read from stdin.
final class PipeInputTests: XCTestCase {
    let expected = ["bicycle: 59%", "car: 52%", "car: 62%", "dog: 56%", "truck: 55%"]

    func labels(_ result: CLIResult) -> [String] {
        result.stdout.split(separator: "\n").dropFirst().map { String($0.split(separator: "\t")[0]) }.sorted()
    }

    func testImageCfgAndWeightsFromFIFOs() throws {
        let folder = try CLI.temporaryFolder(self)
        let cfg = try TestData.path("cfg/yolov3-tiny.cfg"), weights = try TestData.path("yolov3-tiny.weights")
        let dog = try TestData.path("data/dog.jpg")
        let fifos = ["cfg", "weights", "image"].map { folder.appendingPathComponent($0).path }
        var releases: [() -> Void] = []
        for (fifo, source) in zip(fifos, [cfg, weights, dog]) {
            releases.append(CLI.fifo(at: fifo, feeding: try Data(contentsOf: URL(fileURLWithPath: source))))
        }
        let result = try CLI.run(["detect"] + fifos + ["--names", try TestData.path("data/coco.names")], timeout: 300)
        releases.forEach { $0() }
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(labels(result), expected, result.stdout + result.stderr)
    }

    func testDashAndDevStdinReadAnImageFromAPipe() throws {
        let dog = try TestData.path("data/dog.jpg")
        let arguments = try CLI.tinyDetector().map { "'\($0)'" }.joined(separator: " ")
        for name in ["-", "/dev/stdin"] {
            let result = try CLI.shell("cat '\(dog)' | \"$BIN\" detect \(arguments) \(name)")
            XCTAssertEqual(result.status, 0, "\(name): \(result.stderr)")
            XCTAssertTrue(result.stdout.hasPrefix("\(name): Predicted in "), result.stdout)
            XCTAssertEqual(labels(result), expected, name)
        }
        let both = try CLI.run(["detect"] + CLI.tinyDetector() + ["-", "--list", "-"])
        XCTAssertEqual(both.status, 2)
        XCTAssertTrue(both.stderr.contains("stdin"), both.stderr)
    }

    /// A character device that never ends is refused after its first bytes, not read forever.
    func testEndlessDeviceIsRefused() throws {
        let result = try CLI.run(["detect"] + CLI.tinyDetector() + ["/dev/zero"], timeout: 120)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("/dev/zero"), result.stderr)
        XCTAssertTrue(result.stderr.contains("neither JPEG nor PNG"), result.stderr)
    }
}
