import Dispatch
import Foundation
import Video

/// A frame on its way through `stream`: its number in the input, its bytes and when its last
/// byte was read (`DispatchTime` nanoseconds, for the latency; `time`, seconds since 1970,
/// for the JSON line), with the source's timestamp when it has one.
struct Frame: Sendable {
    /// How `bytes` hold the picture.
    enum Pixels: Sendable, Equatable {
        /// A JPEG file (MJPEG on stdin).
        case encoded
        /// Raw frames (`--raw`, or a video source's RGB24).
        case raw(width: Int, height: Int, format: RawPixelFormat)
    }

    var index: Int
    var bytes: [UInt8]
    var pixels: Pixels = .encoded
    var arrival: UInt64
    var time: Double = Date().timeIntervalSince1970
    /// Presentation time in seconds, from the source; nil on stdin.
    var pts: Double?
    /// false: left out by `--every` / `--fps`; it only goes into the `--output` video, drawn
    /// with the latest detections.
    var detect = true
    /// Frames sampling left out before this one.
    var skippedBefore = 0
}

/// What a frame source hands on: a frame, or a frame that was corrupt or cut short (its
/// number and why).
enum FrameItem {
    case frame(Frame)
    case lost(index: Int, error: StreamError)
}

/// Where `stream` reads its frames: stdin (`FrameReader`) or a video source (`VideoFrameSource`).
/// `next()` runs on the session's reader thread only; `stop()` may be called from another
/// thread and ends the frames (nil) as soon as it can.
protocol FrameSource {
    /// The next frame or lost frame; nil at the end. Throws when the input cannot go on.
    mutating func next() throws(StreamError) -> FrameItem?
    /// Frame numbers handed out so far.
    var framesRead: Int { get }
    func stop()
}
