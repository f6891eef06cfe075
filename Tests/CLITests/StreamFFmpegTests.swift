import Dispatch
import Foundation
import TestSupport
import XCTest

/// The README's `stream` examples (issue #31, item 1), read from README.md and run as written
/// with ffmpeg as the producer: a video file, raw frames, and the live camera example with the
/// video played in real time (`-re`) in place of the camera and this test in place of ffplay.
/// Skipped when ffmpeg is not installed (.ci/run installs it).
final class StreamFFmpegTests: XCTestCase {
    var folder: URL!
    var environment: [String: String] = [:]

    override func setUpWithError() throws {
        let ffmpeg = try TestTools.require("ffmpeg", install: "apt-get install ffmpeg: the README's stream examples were not run")
        folder = try CLI.temporaryFolder(self)
        // A 4-second 640×480 video of the sample photo at 15 fps.
        let video = folder.appendingPathComponent("video.mp4")
        let made = try CLI.run(["-loglevel", "error", "-loop", "1", "-framerate", "15", "-i", try TestData.path("data/dog.jpg"),
                                "-t", "4", "-vf", "scale=640:480", "-c:v", "mpeg4", "-q:v", "3", video.path],
                               executable: URL(fileURLWithPath: ffmpeg))
        XCTAssertEqual(made.status, 0, made.stderr)
        environment = ["DARKNET_SWIFT": CLI.binary.path, "CFG": try TestData.path("cfg/yolov3-tiny.cfg"),
                       "WEIGHTS": try TestData.path("yolov3-tiny.weights"), "VIDEO": video.path]
    }

    /// The commands of the README's stream section (comment lines separate them), with the
    /// binary, cfg, weights and video as shell variables.
    func readmeExamples() throws -> [String] {
        let readme = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
        let section = try XCTUnwrap(readme.components(separatedBy: "## Video and camera streams").dropFirst().first)
        let block = section.components(separatedBy: "```")[1].split(separator: "\n").dropFirst()  // after "```sh"
        var examples: [String] = []
        for line in block {
            if line.hasPrefix("#") { examples.append("") } else { examples[examples.count - 1] += line + "\n" }
        }
        return examples.map {
            $0.replacingOccurrences(of: "darknet-swift", with: "\"$DARKNET_SWIFT\"")
                .replacingOccurrences(of: "yolov3-tiny.cfg", with: "\"$CFG\"")
                .replacingOccurrences(of: "yolov3-tiny.weights", with: "\"$WEIGHTS\"")
                .replacingOccurrences(of: "video.mp4", with: "\"$VIDEO\"")
        }
    }

    /// Starts `script` with bash in a folder of its own; returns the process and its stdout.
    func start(_ script: String) throws -> (Process, Pipe, URL) {
        let cwd = folder.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: cwd, withIntermediateDirectories: true)
        let process = Process(), output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "set -o pipefail\n" + script]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.currentDirectoryURL = cwd
        let errors = cwd.appendingPathComponent("stderr")
        try Data().write(to: errors)
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, output, cwd)
    }

    func lines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { try XCTUnwrap(StreamFrames.object($0), String($0)) }
    }

    func testVideoFileAndRawFramesGiveALinePerFrame() throws {
        let examples = try readmeExamples()
        XCTAssertEqual(examples.count, 3, "\(examples)")
        for example in examples.prefix(2) {
            let (process, output, cwd) = try start(example)
            let stdout = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let stderr = try String(contentsOf: cwd.appendingPathComponent("stderr"), encoding: .utf8)
            XCTAssertEqual(process.terminationStatus, 0, "\(example)\n\(stderr)")
            let file = cwd.appendingPathComponent("frames.jsonl")
            let objects = try lines(FileManager.default.fileExists(atPath: file.path) ? String(contentsOf: file, encoding: .utf8) : stdout)
            XCTAssertEqual(objects.map { $0["frame"] as? Int }, Array(0..<60), example)
            for object in objects {
                let names = (object["detections"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                XCTAssertTrue(names.contains("bicycle"), "\(object)")
            }
            XCTAssertTrue(stderr.contains("60 frames read, 60 processed, 0 dropped, 0 failed"), stderr)
        }
    }

    /// The live example: frames come out while the input is still being played (the first
    /// long before the 4 seconds end), and every frame read is processed or dropped, never the
    /// newest; each line carries tracking ids. (StreamLiveTests checks when drops are allowed.)
    func testLiveExampleIsAnsweredWhileTheInputPlays() throws {
        var live = try XCTUnwrap(try readmeExamples().last)
        for (camera, replacement) in [("-f v4l2 -i /dev/video0", "-re -i \"$VIDEO\""), ("| ffplay -loglevel error -f mjpeg -", "")] {
            XCTAssertTrue(live.contains(camera), "the README's live example changed: update this test\n\(live)")
            live = live.replacingOccurrences(of: camera, with: replacement)
        }
        let begin = DispatchTime.now().uptimeNanoseconds
        let (process, output, cwd) = try start(live)
        var annotated = Data(), first: UInt64?
        while case let chunk = output.fileHandleForReading.availableData, !chunk.isEmpty {
            if first == nil { first = DispatchTime.now().uptimeNanoseconds }
            annotated += chunk
        }
        process.waitUntilExit()
        let end = DispatchTime.now().uptimeNanoseconds
        let stderr = try String(contentsOf: cwd.appendingPathComponent("stderr"), encoding: .utf8)
        XCTAssertEqual(process.terminationStatus, 0, stderr)
        let firstFrame = try XCTUnwrap(first, "no annotated frame")
        XCTAssertGreaterThan(Double(end - firstFrame) / 1e9, 1.5,
                             "the first annotated frame came \(Double(firstFrame - begin) / 1e9) s after the start, the run ended after \(Double(end - begin) / 1e9) s")
        XCTAssertEqual(Array(annotated.prefix(2)), [0xFF, 0xD8])
        let objects = try lines(try String(contentsOf: cwd.appendingPathComponent("frames.jsonl"), encoding: .utf8))
        let numbers = objects.compactMap { $0["frame"] as? Int }
        XCTAssertEqual(numbers, numbers.sorted())
        XCTAssertEqual(numbers.last, 59, "the newest frame is never dropped")
        XCTAssertEqual(objects.last?["dropped"] as? Int, 60 - numbers.count)
        for object in objects {
            let detections = try XCTUnwrap(object["detections"] as? [[String: Any]], "\(object)")
            XCTAssertTrue(detections.allSatisfy { $0["id"] is Int }, "\(object)")
        }
    }
}
