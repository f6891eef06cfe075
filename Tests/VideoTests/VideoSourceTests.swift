import Foundation
import Imaging
import TestSupport
@testable import Video
import XCTest

/// `VideoSource` and `VideoWriter` on videos ffmpeg makes here: every frame comes out with
/// ffprobe's timestamps and size, and a written video has the frames, size and rate given.
final class VideoSourceTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = try TestData.temporaryFolder(self, prefix: "darknet-swift-video")
    }

    func read(_ source: VideoSource) throws -> [VideoFrame] {
        var frames: [VideoFrame] = []
        while let frame = try source.next() { frames.append(frame) }
        return frames
    }

    func testFramesHaveTheSourcesTimestampsAndSize() throws {
        for name in ["pan.mp4", "pan.mkv"] {
            let video = folder.appendingPathComponent(name)
            try TestVideos.pan(video, frames: 12)
            let probe = try TestVideos.probe(video.path)
            let source = try VideoSource(try XCTUnwrap(VideoInput(argument: video.path)), ffmpeg: FFmpeg.locate())
            let frames = try read(source)
            XCTAssertEqual(frames.count, probe.frames, name)
            XCTAssertEqual(frames.map(\.index), Array(0..<frames.count))
            for (frame, pts) in zip(frames, probe.pts) {
                XCTAssertEqual(try XCTUnwrap(frame.pts), pts, accuracy: 1e-5, "\(name) frame \(frame.index)")
                XCTAssertEqual([frame.width, frame.height], [640, 480])
                XCTAssertEqual(frame.pixels.count, 640 * 480 * 3)
            }
            XCTAssertEqual(source.frameRate, FrameRate(numerator: 15, denominator: 1))
            XCTAssertTrue(try source.next() == nil, "the end stays the end")
        }
    }

    /// A frame decoded here equals ffmpeg's PNG of the same frame, pixel for pixel.
    func testFramesEqualFFmpegsPNGs() throws {
        let video = folder.appendingPathComponent("pan.mkv")
        try TestVideos.pan(video, frames: 3)
        let pngs = try TestVideos.pngFrames(video.path, into: folder.appendingPathComponent("png"))
        let frames = try read(try VideoSource(.file(video.path), ffmpeg: FFmpeg.locate()))
        XCTAssertEqual(frames.count, pngs.count)
        for (frame, png) in zip(frames, pngs) {
            XCTAssertEqual(try frame.image(), try Image(contentsOf: png), png)
        }
    }

    func testWrittenVideoHasTheFramesSizeAndRate() throws {
        let ffmpeg = try FFmpeg.locate()
        for (name, rate) in [("out.mp4", FrameRate(numerator: 15, denominator: 1)!), ("out.mkv", FrameRate(numerator: 30000, denominator: 1001)!)] {
            let path = folder.appendingPathComponent(name).path
            let writer = try VideoWriter(path: path, width: 64, height: 48, frameRate: rate, ffmpeg: ffmpeg)
            for i in 0..<10 {
                try writer.append(Image(width: 64, height: 48, channels: 3, fill: Float(i) / 10), pts: Double(i) / rate.value)
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: path), "nothing at the path before finish")
            try writer.finish()
            let probe = try TestVideos.probe(path)
            XCTAssertEqual([probe.width, probe.height, probe.frames], [64, 48, 10], name)
            XCTAssertEqual(probe.rate, "\(rate.numerator)/\(rate.denominator)", name)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".tmp-") }, [])
        }
    }

    /// Frames given at slots 0, 3 and 4 (1 and 2 dropped) make 5 frames, the gap filled by
    /// frame 0; a frame for a slot already written is left out; a cancelled video leaves nothing.
    func testGapsRepeatTheFrameBeforeAndCancelRemovesTheFile() throws {
        let ffmpeg = try FFmpeg.locate()
        let rate = FrameRate(numerator: 10, denominator: 1)!
        let path = folder.appendingPathComponent("gaps.mkv").path
        let writer = try VideoWriter(path: path, width: 32, height: 32, frameRate: rate, ffmpeg: ffmpeg)
        for pts in [0.0, 0.3, 0.32, 0.4] { try writer.append(Image(width: 32, height: 32, channels: 3, fill: 0.5), pts: pts) }
        XCTAssertEqual(writer.framesWritten, 5)
        try writer.finish()
        XCTAssertEqual(try TestVideos.probe(path).frames, 5)

        let cancelled = folder.appendingPathComponent("cancelled.mp4").path
        let other = try VideoWriter(path: cancelled, width: 32, height: 32, frameRate: rate, ffmpeg: ffmpeg)
        try other.append(Image(width: 32, height: 32, channels: 3, fill: 0.5), pts: 0)
        other.cancel()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0 != "gaps.mkv" }, [])
    }

    func testAMissingFileAndAnAudioFileAreNamed() throws {
        let ffmpeg = try FFmpeg.locate()
        let missing = folder.appendingPathComponent("missing.mp4").path
        XCTAssertThrowsError(try VideoSource(.file(missing), ffmpeg: ffmpeg)) { error in
            XCTAssertEqual(error as? VideoError, .sourceMissing(missing))
        }
        let audio = folder.appendingPathComponent("tone.mkv")
        try TestVideos.run(try TestVideos.ffmpeg(), ["-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "sine=duration=0.2",
                                                     audio.path])
        let source = try VideoSource(.file(audio.path), ffmpeg: ffmpeg)
        XCTAssertThrowsError(try source.next()) { error in
            XCTAssertEqual(error as? VideoError, .noVideoStream(audio.path))
        }
    }
}
