import Foundation
import XCTest

/// Videos made by ffmpeg at test time from the fetched photos, and ffprobe's view of a video.
/// Skips (naming `apt-get install ffmpeg`) when ffmpeg is not installed; `.ci/run` installs it.
public enum TestVideos {
    /// The ffmpeg program, or a skip.
    public static func ffmpeg(file: StaticString = #filePath, line: UInt = #line) throws -> String {
        try TestTools.require("ffmpeg", install: "apt-get install ffmpeg: the video tests were not run", file: file, line: line)
    }

    /// A pan over `photo` (data/NAME.jpg): a `width`×`height` window moving right by `step`
    /// pixels a frame, `frames` frames at `rate` fps, encoded into `url` as its extension says
    /// (H.264 for .mp4, MJPEG for .mkv, MPEG-4 for .avi; every frame a key frame for .mp4 with
    /// `intra`). Boxes move from frame to frame.
    public static func pan(_ url: URL, photo: String = "dog", frames: Int, rate: Int = 15, width: Int = 640, height: Int = 480,
                           step: Int = 8, file: StaticString = #filePath, line: UInt = #line) throws {
        let ffmpeg = try ffmpeg(file: file, line: line)
        let codec: [String]
        switch url.pathExtension {
        case "mkv": codec = ["-c:v", "mjpeg", "-q:v", "3"]
        case "avi": codec = ["-c:v", "mpeg4", "-q:v", "3"]
        default: codec = ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-preset", "veryfast"]
        }
        let filter = "crop=\(width):\(height):min(\(step)*n\\,iw-\(width)):0"
        try run(ffmpeg, ["-nostdin", "-loglevel", "error", "-y", "-loop", "1", "-framerate", "\(rate)",
                         "-i", try TestData.path("data/\(photo).jpg", file: file, line: line),
                         "-frames:v", "\(frames)", "-vf", filter] + codec + [url.path], file: file, line: line)
    }

    /// What ffprobe says of the first video stream of `path`: its size, rate (`15/1`), frame
    /// count (decoded) and every frame's `pts_time`.
    public struct Probe {
        public var width: Int
        public var height: Int
        public var rate: String
        public var frames: Int
        public var pts: [Double]
    }

    public static func probe(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws -> Probe {
        let ffprobe = try TestTools.require("ffprobe", install: "apt-get install ffmpeg", file: file, line: line)
        let text = try run(ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height,r_frame_rate",
                                     "-show_entries", "frame=pts_time", "-of", "json", path], file: file, line: line)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], file: file, line: line)
        let stream = try XCTUnwrap((object["streams"] as? [[String: Any]])?.first, text, file: file, line: line)
        let frames = (object["frames"] as? [[String: Any]] ?? []).compactMap { ($0["pts_time"] as? String).flatMap(Double.init) }
        return Probe(width: stream["width"] as? Int ?? 0, height: stream["height"] as? Int ?? 0,
                     rate: stream["r_frame_rate"] as? String ?? "", frames: frames.count, pts: frames)
    }

    /// Each frame of `video` as `folder/frame-0001.png`, … (in order); returns their paths.
    public static func pngFrames(_ video: String, into folder: URL, file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try run(try ffmpeg(file: file, line: line), ["-nostdin", "-loglevel", "error", "-i", video, "-fps_mode", "passthrough",
                                                    folder.appendingPathComponent("frame-%04d.png").path], file: file, line: line)
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("frame-") }.sorted()
            .map { folder.appendingPathComponent($0).path }
    }

    /// Runs `program`; returns its stdout, failing the test (and throwing) when it fails.
    @discardableResult
    public static func run(_ program: String, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        final class Box: @unchecked Sendable { var data = Data() }
        let stderr = Box()
        let drained = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            stderr.data = errors.fileHandleForReading.readDataToEndOfFile()
            drained.signal()
        }
        let stdout = output.fileHandleForReading.readDataToEndOfFile()
        drained.wait()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = "\(program) \(arguments.joined(separator: " ")) failed: \(String(decoding: stderr.data, as: UTF8.self))"
            XCTFail(message, file: file, line: line)
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: message])
        }
        return String(decoding: stdout, as: UTF8.self)
    }
}
