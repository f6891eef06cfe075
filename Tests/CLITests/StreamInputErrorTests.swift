import Foundation
import TestSupport
import XCTest

/// Issue #52 item 3: what people first type never succeeds silently. A video, a PNG stream
/// or random bytes on stdin is an error naming what it is and what to type instead; `--raw`
/// reads each of its pixel formats as the format says.
final class StreamInputErrorTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = try CLI.temporaryFolder(self)
    }

    func stream(_ arguments: [String] = [], stdin: URL) throws -> CLIResult {
        try CLI.run(["stream"] + CLI.tinyDetector() + arguments, stdin: stdin)
    }

    func testVideosPNGsAndRandomBytesOnStdinAreNamed() throws {
        let ffmpeg = try TestVideos.ffmpeg()
        let mp4 = folder.appendingPathComponent("pan.mp4"), mkv = folder.appendingPathComponent("pan.mkv")
        try TestVideos.pan(mp4, frames: 2)
        try TestVideos.pan(mkv, frames: 2)
        let webm = folder.appendingPathComponent("tiny.webm"), png = folder.appendingPathComponent("frames.png")
        try TestVideos.run(ffmpeg, ["-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=5", "-frames:v", "2",
                                    "-c:v", "libvpx", webm.path])
        try TestVideos.run(ffmpeg, ["-nostdin", "-loglevel", "error", "-i", mp4.path, "-f", "image2pipe", "-c:v", "png", png.path])
        var generator = SplitMix64(state: 52)
        let big = folder.appendingPathComponent("random-big"), small = folder.appendingPathComponent("random-small")
        try Data((0..<(2 << 20)).map { _ in UInt8(generator.next() % 255) }).write(to: big)  // no 0xFF: no marker at all
        try Data((0..<1000).map { _ in UInt8(generator.next() % 255) }).write(to: small)
        let cases: [(URL, String)] = [
            (mp4, "stdin holds MP4/MOV (ISO base media), not MJPEG (concatenated JPEG files): give the video as the source "
                + "(darknet-swift stream CFG WEIGHTS video.mp4), or pipe MJPEG (ffmpeg -i video.mp4 -f image2pipe -c:v mjpeg - | "),
            (mkv, "stdin holds Matroska, not MJPEG"),
            (webm, "stdin holds WebM, not MJPEG"),
            (png, "stdin holds PNG, not MJPEG: stream reads JPEG frames on stdin; ask ffmpeg for JPEG frames (-f image2pipe -c:v mjpeg -)"),
            (big, "no JPEG frame start (FF D8 FF) in the first 1048576 bytes of stdin: not MJPEG (first bytes: "),
            (small, "stdin ended after 1000 bytes without JPEG frame start (FF D8 FF): not MJPEG"),
        ]
        for (input, message) in cases {
            let result = try stream(stdin: input)
            XCTAssertEqual(result.status, 1, "\(input.lastPathComponent): \(result.stderr)")
            XCTAssertEqual(result.stdout, "", input.lastPathComponent)
            XCTAssertTrue(result.stderr.contains("darknet-swift: error: " + message), "\(input.lastPathComponent): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("0 frames read"), result.stderr)
        }
        // Under --raw, a container is named too (a 2×2 size makes its bytes whole frames).
        let raw = try stream(["--raw", "2x2:gray"], stdin: mkv)
        XCTAssertEqual(raw.status, 1)
        XCTAssertTrue(raw.stderr.contains("--raw 2x2:gray: stdin holds Matroska, not raw frames"), raw.stderr)
        // An empty stdin is still an empty stream.
        let empty = folder.appendingPathComponent("empty")
        try Data().write(to: empty)
        let none = try stream(stdin: empty)
        XCTAssertEqual(none.status, 0, none.stderr)
        XCTAssertTrue(none.stderr.contains("stream: 0 frames read"), none.stderr)
    }

    /// dog.jpg as an RGB PNG, and that PNG written by ffmpeg as raw frames in each pixel format
    /// (a lossless reordering for the colour ones): the four colour formats detect as the PNG,
    /// gray as ffmpeg's grey PNG of it; read with the wrong format (BGR as RGB: red and blue
    /// swapped) it does not.
    func testEachRawPixelFormat() throws {
        let ffmpeg = try TestVideos.ffmpeg()
        let rgbPNG = folder.appendingPathComponent("dog-rgb.png")
        try TestVideos.run(ffmpeg, ["-nostdin", "-loglevel", "error", "-i", try TestData.path("data/dog.jpg"), "-pix_fmt", "rgb24", rgbPNG.path])
        func convert(_ arguments: [String], _ name: String) throws -> URL {
            let url = folder.appendingPathComponent(name)
            try TestVideos.run(ffmpeg, ["-nostdin", "-loglevel", "error", "-i", rgbPNG.path] + arguments + [url.path])
            return url
        }
        let grayPNG = try convert(["-pix_fmt", "gray"], "dog-gray.png")
        func detections(_ text: String) throws -> [String] {
            try CLI.objects(text).map { object in
                (object["detections"] as? [[String: Any]] ?? []).map { d in
                    let box = d["box"] as? [String: Int] ?? [:]
                    return "\(d["name"] ?? "") \(d["confidence"] ?? "") "
                        + ["left", "top", "right", "bottom"].map { "\(box[$0] ?? -1)" }.joined(separator: " ")
                }.sorted().joined(separator: "; ")
            }
        }
        let detect = try CLI.run(["detect"] + CLI.tinyDetector() + [rgbPNG.path, grayPNG.path, "--format", "jsonl", "--quiet"])
        XCTAssertEqual(detect.status, 0, detect.stderr)
        let expected = try detections(detect.stdout)
        XCTAssertEqual(expected.count, 2)
        XCTAssertNotEqual(expected[0], expected[1], "the grey photo detects otherwise")
        for format in ["rgb24", "bgr24", "rgba", "bgra", "gray"] {
            let frames = try convert(["-f", "rawvideo", "-pix_fmt", format, "-frames:v", "1"], "dog.\(format)")
            let result = try stream(["--raw", "768x576:\(format)", "--quiet"], stdin: frames)
            XCTAssertEqual(result.status, 0, "\(format): \(result.stderr)")
            XCTAssertEqual(try detections(result.stdout), [expected[format == "gray" ? 1 : 0]], format)
        }
        let swapped = try stream(["--raw", "768x576", "--quiet"], stdin: folder.appendingPathComponent("dog.bgr24"))
        XCTAssertEqual(swapped.status, 0, swapped.stderr)
        XCTAssertNotEqual(try detections(swapped.stdout), [expected[0]], "BGR read as RGB is another picture")
        let bad = try stream(["--raw", "768x576:yuv420p"], stdin: rgbPNG)
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("--raw must be WxH or WxH:FORMAT with FORMAT one of rgb24, bgr24, rgba, bgra, gray"), bad.stderr)
    }

    /// The source syntax people try first: a positional video, and options a stdin stream cannot have.
    func testSourceArgumentsAndStdinOnlyOptions() throws {
        let video = folder.appendingPathComponent("pan.mkv")
        try TestVideos.pan(video, frames: 2)
        let named = try CLI.run(["stream"] + CLI.tinyDetector() + [video.path, "--quiet"])
        XCTAssertEqual(named.status, 0, named.stderr)
        XCTAssertEqual(try CLI.objects(named.stdout).count, 2)
        for (arguments, message) in [(["--output", folder.appendingPathComponent("o.mp4").path], "--output needs a video source"),
                                     (["--fps", "2"], "--fps needs a source with timestamps"),
                                     (["--realtime"], "--realtime paces a video file given as the source"),
                                     (["--reconnect"], "--reconnect is for cameras and network streams, not stdin")] {
            let result = try CLI.run(["stream"] + CLI.tinyDetector() + arguments, stdin: video)
            XCTAssertEqual(result.status, 2, "\(arguments)")
            XCTAssertTrue(result.stderr.contains(message), result.stderr)
        }
        let missing = try CLI.run(["stream"] + CLI.tinyDetector() + [folder.appendingPathComponent("missing.mp4").path])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("missing.mp4: no such file or device"), missing.stderr)
        let fileReconnect = try CLI.run(["stream"] + CLI.tinyDetector() + [video.path, "--reconnect"])
        XCTAssertEqual(fileReconnect.status, 2)
        XCTAssertTrue(fileReconnect.stderr.contains("--reconnect is for cameras and network streams"), fileReconnect.stderr)
    }
}
