import Foundation
import Imaging
import TestSupport
import XCTest

/// Issue #31 item 16: memory that does not grow with the input: `--list -` starts before
/// stdin ends, `--batch N` holds the network inputs rather than N decoded photos, and
/// `--threads` is capped.
final class MemoryBoundsTests: XCTestCase {
    /// One path on stdin, stdin left open: the result must come before stdin is closed.
    func testListFromStdinStreams() throws {
        let folder = try CLI.temporaryFolder(self)
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = try ["detect"] + CLI.tinyDetector() + ["--list", "-", "--format", "jsonl", "--quiet"]
        let input = Pipe()
        let outURL = folder.appendingPathComponent("stdout")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        process.standardInput = input
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data((try TestData.path("data/dog.jpg") + "\n").utf8))
        var first = ""
        let deadline = Date().addingTimeInterval(120)  // a hang guard, not a timing
        while Date() < deadline && process.isRunning {
            first = String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self)
            if first.hasSuffix("\n") { break }
            usleep(20_000)
        }
        let streamed = first.hasSuffix("\n")
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        XCTAssertTrue(streamed, "no result while stdin was open")
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertEqual(try CLI.objects(first).first?["path"] as? String, try TestData.path("data/dog.jpg"))
    }

    /// Eight 12-megapixel photos (144 MB each as floats) in one batch of 8: the peak stays far
    /// below eight photos, with and without annotated copies.
    func testBatchHoldsNetworkInputsNotPhotos() throws {
        let folder = try CLI.temporaryFolder(self)
        let photos = folder.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        var pixels = [Float](repeating: 0, count: 3 * 4000 * 3000)
        for i in pixels.indices { pixels[i] = Float((i / 7) % 256) / 255 }
        let first = photos.appendingPathComponent("photo0.jpg").path
        try Image(width: 4000, height: 3000, channels: 3, data: pixels).write(to: first)
        pixels = []
        for i in 1..<8 { try FileManager.default.copyItem(atPath: first, toPath: photos.appendingPathComponent("photo\(i).jpg").path) }
        let plain = try CLI.peakMemory(["detect"] + CLI.tinyDetector() + [photos.path, "--batch", "8", "--quiet"])
        XCTAssertEqual(plain.status, 0)
        XCTAssertLessThan(plain.kibibytes, 600_000, "eight photos would be 1,125,000 KiB")
        let out = folder.appendingPathComponent("out").path
        let drawn = try CLI.peakMemory(["detect"] + CLI.tinyDetector() + [photos.path, "--batch", "8", "--quiet", "--output-dir", out])
        XCTAssertEqual(drawn.status, 0)
        XCTAssertLessThan(drawn.kibibytes, 800_000, "eight photos would be 1,125,000 KiB")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out).count, 8)
    }

    func testThreadsAreCapped() throws {
        let cap = min(4 * ProcessInfo.processInfo.activeProcessorCount, 256)
        let result = try CLI.run(["benchmark", try TestData.path("cfg/yolov3-tiny.cfg"), "--threads", "1000", "--runs", "1",
                                  "--warmup", "0", "--size", "64", "--format", "json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "darknet-swift: warning: --threads 1000 is more than \(cap) (4 per core, at most 256): using \(cap)\n")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((object["machine"] as? [String: Any])?["threads"] as? Int, cap)
        let detect = try CLI.run(["detect"] + CLI.tinyDetector() + [try TestData.path("data/dog.jpg"), "--threads", "100000", "--quiet"])
        XCTAssertEqual(detect.status, 0, detect.stderr)
        XCTAssertTrue(detect.stderr.contains("--threads 100000 is more than \(cap)"), detect.stderr)
    }
}
