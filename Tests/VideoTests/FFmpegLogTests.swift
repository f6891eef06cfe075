@testable import Video
import XCTest

/// `FFmpegLog.parse` on lines a decoding ffmpeg 5.1 writes (copied from its stderr).
final class FFmpegLogTests: XCTestCase {
    func testShowinfoFramesRateAndDuration() {
        let frame = "[Parsed_showinfo_1 @ 0x55c763511980] n:   1 pts:   1024 pts_time:0.0666667 pos:    76309 fmt:rgb24 sar:0/1 "
            + "s:640x480 i:P iskey:0 type:B"
        XCTAssertEqual(FFmpegLog.parse(frame), .frame(.init(pts: 0.0666667, width: 640, height: 480)))
        XCTAssertEqual(FFmpegLog.parse("[Parsed_showinfo_1 @ 0x5] n:   0 pts:NOPTS pts_time:NOPTS pos: -1 fmt:rgb24 s:2x2 i:P"),
                       .frame(.init(pts: nil, width: 2, height: 2)))
        XCTAssertEqual(FFmpegLog.parse("[Parsed_showinfo_1 @ 0x5] config in time_base: 1/15360, frame_rate: 15/1"),
                       .frameRate(FrameRate(numerator: 15, denominator: 1)))
        XCTAssertEqual(FFmpegLog.parse("[Parsed_showinfo_1 @ 0x5] config in time_base: 1/90000, frame_rate: 0/0"), .frameRate(nil))
        XCTAssertEqual(FFmpegLog.parse("[Parsed_showinfo_1 @ 0x5] config out time_base: 0/0, frame_rate: 0/0"), .noise)
        XCTAssertEqual(FFmpegLog.parse("[Parsed_showinfo_1 @ 0x5] color_range:pc color_space:gbr"), .noise)
        XCTAssertEqual(FFmpegLog.parse("  Duration: 00:01:02.50, start: 0.000000, bitrate: 688 kb/s"), .duration(62.5))
        XCTAssertEqual(FFmpegLog.parse("  Duration: N/A, bitrate: N/A"), .duration(nil))
    }

    func testErrorsAndNoise() {
        XCTAssertEqual(FFmpegLog.parse("http://127.0.0.1:18092/live.mjpg: Connection refused"),
                       .message("http://127.0.0.1:18092/live.mjpg: Connection refused"))
        XCTAssertEqual(FFmpegLog.parse("[tcp @ 0x55b396ec0200] Connection to tcp://127.0.0.1:1 failed: Connection refused"),
                       .message("Connection to tcp://127.0.0.1:1 failed: Connection refused"))
        XCTAssertEqual(FFmpegLog.parse("Stream map '0:v:0' matches no streams."), .noVideoStream)
        for noise in ["Input #0, mov,mp4,m4a,3gp,3g2,mj2, from 'pan.mp4':", "  Stream #0:0[0x1](und): Video: h264", "Stream mapping:",
                      "frame=   37 fps= 15 q=-0.0 Lsize=   33300kB", "Exiting normally, received signal 15.",
                      "[swscaler @ 0x5628fae27300] deprecated pixel format used", ""] {
            XCTAssertEqual(FFmpegLog.parse(noise), .noise, noise)
        }
    }
}
