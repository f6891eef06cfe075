import Foundation
import TestSupport
import XCTest

/// `stream` and `detect` on video files (issue #52, items 1, 2 and 5), through the binary, on
/// pans ffmpeg makes from the sample photos (boxes move from frame to frame).
final class StreamVideoTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = try CLI.temporaryFolder(self)
    }

    /// Class names and pixel boxes, sorted, of a record's detections.
    func summary(_ object: [String: Any]) throws -> [String] {
        try XCTUnwrap(object["detections"] as? [[String: Any]], "\(object)").map { d in
            let box = d["box"] as? [String: Int] ?? [:]
            return "\(d["name"] ?? "?") \(d["confidence"] ?? "?") \(box["left"] ?? -1) \(box["top"] ?? -1) \(box["right"] ?? -1) \(box["bottom"] ?? -1)"
        }.sorted()
    }

    /// Per frame, the detections of `stream` on an mp4 (H.264) and an mkv (MJPEG) equal
    /// `detect`'s on the same frames decoded to PNG by ffmpeg, and each line's pts is
    /// ffprobe's; the annotated mp4 has the source's frame count, size and frame rate; the PNGs
    /// read back as an image sequence (`frame-%04d.png`) detect as they do one by one.
    func testFramesDetectAsTheirPNGsWithTheSourcesTimestamps() throws {
        for name in ["pan.mp4", "pan.mkv"] {
            let video = folder.appendingPathComponent(name)
            try TestVideos.pan(video, photo: name == "pan.mp4" ? "dog" : "horses", frames: 8, step: 16)
            let probe = try TestVideos.probe(video.path)
            let annotated = folder.appendingPathComponent("annotated-\(name).mp4")
            let result = try CLI.run(["stream"] + CLI.tinyDetector() + [video.path, "--output", annotated.path])
            XCTAssertEqual(result.status, 0, result.stderr)
            let lines = try CLI.objects(result.stdout)
            XCTAssertEqual(lines.map { $0["frame"] as? Int }, Array(0..<probe.frames), name)
            for (line, pts) in zip(lines, probe.pts) {
                XCTAssertEqual(try XCTUnwrap(line["pts"] as? Double, "\(line)"), pts, accuracy: 1e-5, name)
                XCTAssertNotNil(line["time"] as? Double)
            }
            let pngFolder = folder.appendingPathComponent("png-\(name)")
            let pngs = try TestVideos.pngFrames(video.path, into: pngFolder)
            let detected = try CLI.run(["detect"] + CLI.tinyDetector() + pngs + ["--format", "jsonl", "--quiet"])
            XCTAssertEqual(detected.status, 0, detected.stderr)
            let expected = try CLI.objects(detected.stdout)
            XCTAssertEqual(expected.count, lines.count)
            for (index, (line, image)) in zip(lines, expected).enumerated() {
                XCTAssertEqual(try summary(line), try summary(image), "\(name) frame \(index)")
            }
            // The PNGs as an image sequence source: the same detections, at image2's 25 fps.
            let sequence = try CLI.run(["stream"] + CLI.tinyDetector() + [pngFolder.appendingPathComponent("frame-%04d.png").path, "--quiet"])
            XCTAssertEqual(sequence.status, 0, sequence.stderr)
            let sequenceLines = try CLI.objects(sequence.stdout)
            XCTAssertEqual(try sequenceLines.map(summary), try expected.map(summary), name)
            XCTAssertEqual(sequenceLines.map { $0["pts"] as? Double }, expected.indices.map { Double($0) / 25 })
            XCTAssertTrue(lines.contains { (try? summary($0).isEmpty) == false }, "\(name): something was found")
            let written = try TestVideos.probe(annotated.path)
            XCTAssertEqual([written.width, written.height, written.frames], [probe.width, probe.height, probe.frames], name)
            XCTAssertEqual(written.rate, probe.rate, name)
            XCTAssertTrue(result.stderr.contains("; \(annotated.path): \(probe.frames) frames"), result.stderr)
        }
    }

    /// `detect` takes a video as its input: darknet's lines per frame by default, stream's
    /// JSON lines with --format jsonl, and refuses what only images have.
    func testDetectOnAVideo() throws {
        let video = folder.appendingPathComponent("pan.mkv")
        try TestVideos.pan(video, frames: 3, step: 16)
        let text = try CLI.run(["detect"] + CLI.tinyDetector() + [video.path])
        XCTAssertEqual(text.status, 0, text.stderr)
        let headings = text.stdout.split(separator: "\n").filter { $0.contains("Predicted in") }
        XCTAssertEqual(headings.map { String($0.prefix { $0 != ":" }) },
                       ["\(video.path) frame 0 at 0.000 s", "\(video.path) frame 1 at 0.067 s", "\(video.path) frame 2 at 0.133 s"])
        XCTAssertTrue(text.stdout.contains("dog: "), text.stdout)
        XCTAssertTrue(text.stderr.contains("detect: 3 frames read, 3 processed, 0 dropped, 0 failed"), text.stderr)
        let json = try CLI.run(["detect"] + CLI.tinyDetector() + [video.path, "--format", "jsonl", "--quiet"])
        XCTAssertEqual(json.status, 0, json.stderr)
        XCTAssertEqual(try CLI.objects(json.stdout).map { $0["frame"] as? Int }, [0, 1, 2])
        for (arguments, refused) in [(["--output-dir", folder.path], "--output-dir"), (["--format", "csv"], "--format csv"),
                                     ([try TestData.path("data/dog.jpg")], "give it as detect's only input"),
                                     (["--output", folder.appendingPathComponent("out.png").path], "a video needs a video file name")] {
            let result = try CLI.run(["detect"] + CLI.tinyDetector() + [video.path] + arguments)
            XCTAssertEqual(result.status, 2, "\(arguments)")
            XCTAssertTrue(result.stderr.contains(refused), result.stderr)
        }
    }

    /// `--fps 5` on a 15 fps source takes frames 0, 3, 6, …; `--every 4` frames 0, 4, 8;
    /// frames left out still go into the video (drawn with the latest boxes), so it keeps
    /// every frame.
    func testSamplingKeepsTheVideoWhole() throws {
        let video = folder.appendingPathComponent("pan.mkv")
        try TestVideos.pan(video, frames: 10, step: 8)
        for (option, frames) in [(["--fps", "5"], [0, 3, 6, 9]), (["--every", "4"], [0, 4, 8])] {
            let output = folder.appendingPathComponent("sampled\(option[0]).mkv")
            let result = try CLI.run(["stream"] + CLI.tinyDetector() + [video.path, "--output", output.path] + option)
            XCTAssertEqual(result.status, 0, result.stderr)
            let lines = try CLI.objects(result.stdout)
            XCTAssertEqual(lines.map { $0["frame"] as? Int }, frames, "\(option)")
            XCTAssertEqual(lines.map { $0["skipped"] as? Int }, frames.indices.map { frames[$0] - $0 }, "\(option)")
            XCTAssertTrue(result.stderr.contains("10 frames read, \(frames.count) processed, 0 dropped, 0 failed, "
                                                 + "\(10 - frames.count) skipped by sampling"), result.stderr)
            XCTAssertEqual(try TestVideos.probe(output.path).frames, 10, "\(option)")
        }
    }

    /// Issue #52 item 5 through the binary: on a pan over dog.jpg, whose car is also found as
    /// a truck, class-agnostic tracking with agnostic NMS gives fewer ids than per-class
    /// tracking, the dog keeps one id, and no frame has an id twice.
    func testAgnosticTrackingNeedsFewerIds() throws {
        let video = folder.appendingPathComponent("pan.mkv")
        try TestVideos.pan(video, frames: 12, width: 704, height: 576, step: 4)
        func ids(_ options: [String]) throws -> (all: Set<Int>, dog: Set<Int>) {
            let result = try CLI.run(["stream"] + CLI.tinyDetector() + [video.path, "--track", "--quiet"] + options)
            XCTAssertEqual(result.status, 0, result.stderr)
            var all = Set<Int>(), dog = Set<Int>()
            for line in try CLI.objects(result.stdout) {
                let detections = try XCTUnwrap(line["detections"] as? [[String: Any]])
                let frameIds = detections.compactMap { $0["id"] as? Int }
                XCTAssertEqual(Set(frameIds).count, frameIds.count, "\(options): an id twice in a frame")
                all.formUnion(frameIds)
                for d in detections where d["name"] as? String == "dog" { dog.insert(d["id"] as? Int ?? -1) }
            }
            return (all, dog)
        }
        let perClass = try ids([])
        let agnostic = try ids(["--track-agnostic", "--nms-mode", "agnostic", "--track-memory", "30", "--track-iou", "0.2"])
        XCTAssertEqual(agnostic.dog.count, 1, "the dog keeps its id")
        XCTAssertLessThan(agnostic.all.count, perClass.all.count, "per class \(perClass.all), agnostic \(agnostic.all)")
        let refused = try CLI.run(["stream"] + CLI.tinyDetector() + [video.path, "--track-agnostic"])
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.stderr.contains("need --track"), refused.stderr)
    }

    /// A network source: an HLS playlist (`.m3u8` and MPEG-TS segments ffmpeg cut from an mp4)
    /// served over HTTP by a local server gives, frame by frame, the detections of the mp4 read
    /// as a file (with `--no-drop`: a network source is live, and by default stale frames drop).
    func testAnHLSPlaylistOverHTTPDetectsAsTheFile() throws {
        let video = folder.appendingPathComponent("pan.mp4")
        try TestVideos.pan(video, frames: 12, step: 16)
        let site = folder.appendingPathComponent("site")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        _ = try TestVideos.run(try TestVideos.ffmpeg(), ["-nostdin", "-loglevel", "error", "-i", video.path, "-c", "copy", "-f", "hls",
                                                      "-hls_time", "0.3", "-hls_playlist_type", "vod",
                                                      site.appendingPathComponent("pan.m3u8").path])
        let python = try TestTools.require("python3", install: "apt-get install python3: the HLS test was not run")
        let port = try MJPEGServer.freePort()
        let server = Process()
        server.executableURL = URL(fileURLWithPath: python)
        server.arguments = ["-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", site.path]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        let url = "http://127.0.0.1:\(port)/pan.m3u8"
        let deadline = Date().addingTimeInterval(30)
        while !Self.accepts(port) {
            guard Date() < deadline, server.isRunning else { return XCTFail("the HTTP server did not listen on \(url)") }
            usleep(50_000)
        }
        let fromFile = try CLI.run(["stream"] + CLI.tinyDetector() + [video.path, "--quiet"])
        XCTAssertEqual(fromFile.status, 0, fromFile.stderr)
        let fromNetwork = try CLI.run(["stream"] + CLI.tinyDetector() + [url, "--timeout", "20", "--no-drop"])
        XCTAssertEqual(fromNetwork.status, 0, fromNetwork.stderr)
        let expected = try CLI.objects(fromFile.stdout)
        let lines = try CLI.objects(fromNetwork.stdout)
        XCTAssertEqual(lines.count, 12, fromNetwork.stderr)
        XCTAssertEqual(try lines.map(summary), try expected.map(summary))
        XCTAssertTrue(expected.contains { (try? summary($0).isEmpty) == false }, "something was found")
    }

    /// Whether a TCP connection to 127.0.0.1:`port` is accepted.
    static func accepts(_ port: UInt16) -> Bool {
        guard let fd = Loopback.connect(port) else { return false }
        close(fd)
        return true
    }
}
