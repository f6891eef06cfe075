import Foundation
import TestSupport
@testable import Video
import XCTest

/// `VideoInput`'s rules for what a command-line argument names, and the ffmpeg options each
/// kind of source gets; `ContainerSignature`'s names for the first bytes of a stream.
final class VideoInputTests: XCTestCase {
    func testArgumentsNameTheirKindOfSource() throws {
        XCTAssertEqual(VideoInput(argument: "video.mp4"), .file("video.mp4"))
        XCTAssertEqual(VideoInput(argument: "clip.MKV"), .file("clip.MKV"))
        XCTAssertEqual(VideoInput(argument: "file:///tmp/a.webm"), .file("/tmp/a.webm"))
        XCTAssertEqual(VideoInput(argument: "/dev/video2"), .camera("/dev/video2"))
        XCTAssertEqual(VideoInput(argument: "rtsp://cam.local:554/stream"), .network("rtsp://cam.local:554/stream"))
        XCTAssertEqual(VideoInput(argument: "HTTPS://host/live.m3u8"), .network("HTTPS://host/live.m3u8"))
        XCTAssertEqual(VideoInput(argument: "frames/img-%04d.png"), .imageSequence("frames/img-%04d.png"))
        XCTAssertEqual(VideoInput(argument: "shot%d.jpg"), .imageSequence("shot%d.jpg"))
        for notVideo in ["dog.jpg", "photos/", "list.txt", "-", "ftp://host/a.mp4x", "100%.png", "123"] {
            XCTAssertNil(VideoInput(argument: notVideo), notVideo)
        }
        #if os(Linux)
        XCTAssertEqual(VideoInput(argument: "0"), .camera("/dev/video0"))
        #endif
        XCTAssertTrue(VideoInput.network("rtsp://a").isLive && VideoInput.camera("/dev/video0").isLive)
        XCTAssertEqual(VideoInput.camera("/dev/video0").localPath, "/dev/video0")
        XCTAssertNil(VideoInput.camera("0").localPath, "AVFoundation's camera 0 is no file")
        XCTAssertNil(VideoInput.network("rtsp://a").localPath)
        XCTAssertFalse(VideoInput.file("a.mp4").isLive || VideoInput.imageSequence("%d.png").isLive)
    }

    /// A file of any name whose first bytes are a container's is a video; a file named `0`
    /// is a file, not the first camera.
    func testSignaturesAndExistingFilesDecide() throws {
        let folder = try TestData.temporaryFolder(self, prefix: "darknet-swift-video")
        let clip = folder.appendingPathComponent("clip.bin")
        try Data([0, 0, 0, 0x20] + Array("ftypisom".utf8) + [UInt8](repeating: 0, count: 200)).write(to: clip)
        XCTAssertEqual(VideoInput(argument: clip.path), .file(clip.path))
        let text = folder.appendingPathComponent("notes.bin")
        try Data("hello".utf8).write(to: text)
        XCTAssertNil(VideoInput(argument: text.path))
        let previous = FileManager.default.currentDirectoryPath
        _ = FileManager.default.changeCurrentDirectoryPath(folder.path)
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        try Data("x".utf8).write(to: folder.appendingPathComponent("0"))
        XCTAssertNil(VideoInput(argument: "0"), "an existing file named 0 is not a camera")
    }

    func testFFmpegOptionsPerSource() {
        XCTAssertEqual(VideoInput.file("a:b.mp4").ffmpegArguments(realtime: true), ["-re", "-i", "file:a:b.mp4"])
        XCTAssertEqual(VideoInput.network("rtsp://h/s").ffmpegArguments(realtime: false), ["-rtsp_transport", "tcp", "-i", "rtsp://h/s"])
        XCTAssertEqual(VideoInput.network("http://h/s.mjpg").ffmpegArguments(realtime: true), ["-i", "http://h/s.mjpg"])
        XCTAssertEqual(VideoInput.imageSequence("-%03d.png").ffmpegArguments(realtime: false), ["-f", "image2", "-i", "./-%03d.png"])
        #if os(Linux)
        XCTAssertEqual(VideoInput.camera("/dev/video0").ffmpegArguments(realtime: true), ["-f", "v4l2", "-i", "/dev/video0"])
        #endif
        XCTAssertEqual(DecoderSession.arguments(for: .file("v.mp4"), realtime: false),
                       ["-nostdin", "-hide_banner", "-nostats", "-loglevel", "info", "-i", "file:v.mp4", "-map", "0:v:0",
                        "-vf", "format=rgb24,showinfo=checksum=0", "-fps_mode", "passthrough", "-f", "rawvideo", "-"])
        let rate = FrameRate(numerator: 30000, denominator: 1001)!
        XCTAssertEqual(VideoWriter.arguments(width: 641, height: 480, frameRate: rate, format: "mp4", file: "t"),
                       ["-nostdin", "-hide_banner", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "rgb24", "-video_size", "641x480",
                        "-framerate", "30000/1001", "-i", "-", "-f", "mp4", "-y", "t"], "odd sizes keep ffmpeg's pixel format")
        XCTAssertEqual(FrameRate("25")?.value, 25)
        XCTAssertNil(FrameRate("0/0"))
    }

    func testContainerSignatures() {
        func name(_ bytes: [UInt8]) -> String? { ContainerSignature.name(of: bytes + [UInt8](repeating: 0, count: 200)) }
        XCTAssertEqual(name([0xFF, 0xD8, 0xFF, 0xE0]), "JPEG")
        XCTAssertEqual(name([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "PNG")
        XCTAssertEqual(name([0, 0, 0, 0x18] + Array("ftypmp42".utf8)), "MP4/MOV (ISO base media)")
        XCTAssertEqual(name([0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x82, 0x84] + Array("webm".utf8)), "WebM")
        XCTAssertEqual(name([0x1A, 0x45, 0xDF, 0xA3, 0xA3, 0x42, 0x82, 0x88] + Array("matroska".utf8)), "Matroska")
        XCTAssertEqual(name(Array("RIFF".utf8) + [0, 0, 0, 0] + Array("AVI LIST".utf8)), "AVI")
        XCTAssertEqual(name(Array("OggS".utf8)), "Ogg")
        XCTAssertEqual(name(Array("GIF89a".utf8)), "GIF")
        var transport = [UInt8](repeating: 0, count: 400)
        transport[0] = 0x47
        transport[188] = 0x47
        XCTAssertEqual(ContainerSignature.name(of: transport), "MPEG transport stream")
        XCTAssertNil(name(Array("hello world".utf8)))
        XCTAssertNil(ContainerSignature.name(of: [UInt8]()))
        XCTAssertFalse(ContainerSignature.isVideo("PNG"))
        XCTAssertTrue(ContainerSignature.isVideo("WebM"))
    }
}
