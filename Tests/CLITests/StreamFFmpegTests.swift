import Dispatch
import Foundation
import TestSupport
import XCTest

/// The README's video examples (issue #52), read from README.md and run as written: a
/// video file, sampling and tracking, detect's demo lines, raw BGR frames on stdin, the
/// camera example with the video played in real time (`--realtime`) in place of the camera,
/// and the network camera example on a local HTTP MJPEG server (ffmpeg's `-listen 1`)
/// stopped by SIGINT. Skipped when ffmpeg is not installed (.ci/run installs it).
final class StreamFFmpegTests: XCTestCase {
    var folder: URL!
    var environment: [String: String] = [:]
    static let frames = 60

    override func setUpWithError() throws {
        folder = try CLI.temporaryFolder(self)
        // A 4-second 640×480 pan over the sample photo at 15 fps.
        let video = folder.appendingPathComponent("video.mp4")
        try TestVideos.pan(video, frames: Self.frames, step: 2)
        environment = ["DARKNET_SWIFT": CLI.binary.path, "CFG": try TestData.path("cfg/yolov3-tiny.cfg"),
                       "WEIGHTS": try TestData.path("yolov3-tiny.weights"), "VIDEO": video.path]
    }

    /// The commands of the README's video section (comment lines separate them), with the
    /// binary, cfg, weights and video as shell variables.
    func readmeExamples() throws -> [String] {
        let readme = try String(contentsOf: TestData.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
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

    /// Starts `script` with bash in a folder of its own; returns the process and the folder.
    func start(_ script: String) throws -> (Process, URL) {
        let cwd = folder.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: cwd, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "set -o pipefail\n" + script]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.currentDirectoryURL = cwd
        for name in ["stdout", "stderr"] { try Data().write(to: cwd.appendingPathComponent(name)) }
        process.standardOutput = try FileHandle(forWritingTo: cwd.appendingPathComponent("stdout"))
        process.standardError = try FileHandle(forWritingTo: cwd.appendingPathComponent("stderr"))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, cwd)
    }

    /// Runs `script` to its end: its exit status, stdout and stderr, and its folder.
    func run(_ script: String) throws -> (status: Int32, stdout: String, stderr: String, cwd: URL) {
        let (process, cwd) = try start(script)
        process.waitUntilExit()
        return (process.terminationStatus, text(cwd, "stdout"), text(cwd, "stderr"), cwd)
    }

    func text(_ cwd: URL, _ name: String) -> String {
        (try? String(contentsOf: cwd.appendingPathComponent(name), encoding: .utf8)) ?? ""
    }

    /// Class names and pixel boxes, sorted, of each line's detections.
    func summaries(_ text: String) throws -> [[String]] {
        try CLI.objects(text).map { object in
            try XCTUnwrap(object["detections"] as? [[String: Any]]).map { d in
                let box = d["box"] as? [String: Int] ?? [:]
                return "\(d["name"] ?? "?") \(box["left"] ?? -1) \(box["top"] ?? -1) \(box["right"] ?? -1) \(box["bottom"] ?? -1)"
            }.sorted()
        }
    }

    func testVideoFileSamplingDetectAndRawExamples() throws {
        let examples = try readmeExamples()
        XCTAssertEqual(examples.count, 6, "\(examples)")
        let video = environment["VIDEO"]!
        let probe = try TestVideos.probe(video)

        let file = try run(examples[0])
        XCTAssertEqual(file.status, 0, file.stderr)
        let lines = try CLI.objects(text(file.cwd, "frames.jsonl"))
        XCTAssertEqual(lines.map { $0["frame"] as? Int }, Array(0..<Self.frames))
        for (line, pts) in zip(lines, probe.pts) { XCTAssertEqual(try XCTUnwrap(line["pts"] as? Double), pts, accuracy: 1e-5) }
        let annotated = try TestVideos.probe(file.cwd.appendingPathComponent("annotated.mp4").path)
        XCTAssertEqual([annotated.width, annotated.height, annotated.frames], [640, 480, Self.frames])
        XCTAssertEqual(annotated.rate, "15/1")
        XCTAssertTrue(file.stderr.contains("60 frames read, 60 processed, 0 dropped, 0 failed"), file.stderr)

        let sampled = try run(examples[1])
        XCTAssertEqual(sampled.status, 0, sampled.stderr)
        let kept = try CLI.objects(sampled.stdout)
        XCTAssertEqual(kept.map { $0["frame"] as? Int }, Array(stride(from: 0, to: Self.frames, by: 5)))
        XCTAssertEqual(kept.map { $0["skipped"] as? Int }, kept.indices.map { $0 * 4 })
        for line in kept {
            XCTAssertTrue((line["detections"] as? [[String: Any]] ?? []).allSatisfy { $0["id"] is Int }, "\(line)")
        }
        XCTAssertTrue(sampled.stderr.contains("60 frames read, 12 processed, 0 dropped, 0 failed, 48 skipped by sampling"), sampled.stderr)

        let demo = try run(examples[2])
        XCTAssertEqual(demo.status, 0, demo.stderr)
        let headings = demo.stdout.split(separator: "\n").filter { $0.contains(": Predicted in ") }
        XCTAssertEqual(headings.count, Self.frames, demo.stdout)
        XCTAssertTrue(headings[3].hasPrefix("\(video) frame 3 at 0.200 s: Predicted in "), String(headings[3]))
        XCTAssertEqual(try TestVideos.probe(demo.cwd.appendingPathComponent("annotated.mkv").path).frames, Self.frames)

        // bgr24 frames, converted back to RGB, are the frames of the first example.
        let raw = try run(examples[5])
        XCTAssertEqual(raw.status, 0, raw.stderr)
        XCTAssertEqual(try summaries(raw.stdout), try summaries(text(file.cwd, "frames.jsonl")))
    }

    /// The camera example with the video played in real time in place of the camera: frames
    /// are dropped while the engine is busy, never the newest, and the recording has every
    /// frame's slot at the source's rate.
    func testCameraExampleWithAVideoPlayedInRealTime() throws {
        var camera = try readmeExamples()[3]
        XCTAssertTrue(camera.contains("/dev/video0"), "the README's camera example changed: update this test\n\(camera)")
        camera = camera.replacingOccurrences(of: "/dev/video0", with: "\"$VIDEO\" --realtime")
        let result = try run(camera)
        XCTAssertEqual(result.status, 0, result.stderr)
        let numbers = try CLI.objects(result.stdout).compactMap { $0["frame"] as? Int }
        XCTAssertEqual(numbers, numbers.sorted())
        XCTAssertEqual(numbers.last, Self.frames - 1, "the newest frame is never dropped")
        XCTAssertTrue(result.stderr.contains("60 frames read, \(numbers.count) processed, \(Self.frames - numbers.count) dropped"),
                      result.stderr)
        let recording = try TestVideos.probe(result.cwd.appendingPathComponent("camera.mp4").path)
        XCTAssertEqual([recording.width, recording.height], [640, 480])
        XCTAssertEqual(recording.rate, "15/1")
        XCTAssertEqual(recording.frames, Self.frames, "dropped frames' slots repeat the frame before")
    }

    /// The network camera example, on a local HTTP MJPEG server playing the video in a loop
    /// in real time: frames come, then SIGINT stops the run cleanly (status 130, the summary
    /// says so).
    func testNetworkCameraExampleOnALocalServer() throws {
        var network = try readmeExamples()[4]
        XCTAssertTrue(network.contains("rtsp://camera.local/stream"), "the README's network example changed: update this test\n\(network)")
        let server = try MJPEGServer(video: environment["VIDEO"]!)
        defer { server.stop() }
        network = "exec " + network.replacingOccurrences(of: "rtsp://camera.local/stream", with: server.url)
        let (process, cwd) = try start(network)
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning && Date() < deadline && (text(cwd, "frames.jsonl")).split(separator: "\n").count < 5 {
            usleep(50_000)
        }
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        let stderr = text(cwd, "stderr")
        XCTAssertEqual(process.terminationReason, .exit, stderr)
        XCTAssertEqual(process.terminationStatus, 128 + SIGINT, stderr)
        XCTAssertGreaterThanOrEqual(try CLI.objects(text(cwd, "frames.jsonl")).count, 5)
        XCTAssertTrue(stderr.contains("(stopped by SIGINT)"), stderr)
    }
}
