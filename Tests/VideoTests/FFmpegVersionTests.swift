import TestSupport
@testable import Video
import XCTest

/// `FFmpeg`: the version line of `ffmpeg -version` and the oldest release accepted.
final class FFmpegVersionTests: XCTestCase {
    func testVersionTextIsTheWordAfterFFmpegVersion() {
        XCTAssertEqual(FFmpeg.versionText("ffmpeg version 5.1.9-0+deb12u1 Copyright (c) 2000-2026 the FFmpeg developers\nbuilt with gcc"),
                       "5.1.9-0+deb12u1")
        XCTAssertEqual(FFmpeg.versionText("ffmpeg version N-113470-g0a5a1f6 Copyright"), "N-113470-g0a5a1f6")
        XCTAssertNil(FFmpeg.versionText("avconv version 12"))
    }

    func testReleaseNumbers() {
        XCTAssertEqual(FFmpeg.releaseNumber("5.1.9-0+deb12u1")?.major, 5)
        XCTAssertEqual(FFmpeg.releaseNumber("5.1.9-0+deb12u1")?.minor, 1)
        XCTAssertEqual(FFmpeg.releaseNumber("n6.1")?.major, 6)
        XCTAssertEqual(FFmpeg.releaseNumber("7.0")?.minor, 0)
        XCTAssertEqual(FFmpeg.releaseNumber("4.4.2-0ubuntu0.22.04.1")?.minor, 4)
        XCTAssertNil(FFmpeg.releaseNumber("N-113470-g0a5a1f6"), "a git build has no release number")
    }

    func testAMissingFFmpegNamesThePathAndTheInstall() throws {
        let empty = try TestData.temporaryFolder(self, prefix: "darknet-swift-video")
        XCTAssertThrowsError(try FFmpeg.locate(environment: ["PATH": empty.path])) { error in
            XCTAssertEqual(error as? VideoError, .ffmpegMissing(searched: [empty.path]))
            XCTAssertTrue(String(describing: error).contains("apt-get install ffmpeg"), "\(error)")
        }
    }

    /// A program that says an old version is refused with both versions.
    func testAnOldFFmpegIsRefused() throws {
        let folder = try TestData.temporaryFolder(self, prefix: "darknet-swift-video")
        let fake = folder.appendingPathComponent("ffmpeg")
        try "#!/bin/sh\necho 'ffmpeg version 4.4.2-0ubuntu0.22.04.1 Copyright (c) 2000-2021 the FFmpeg developers'\n"
            .write(to: fake, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fake.path)
        XCTAssertThrowsError(try FFmpeg.locate(environment: ["PATH": folder.path])) { error in
            XCTAssertEqual(error as? VideoError, .ffmpegTooOld(path: fake.path, version: "4.4.2-0ubuntu0.22.04.1", minimum: "5.1"))
        }
    }
}
