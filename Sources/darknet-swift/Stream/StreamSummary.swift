import Foundation
import Video

/// The outcome of a `stream` run (and of `detect` on a video).
struct StreamSummary: CustomStringConvertible {
    /// `stream` or `detect`: the summary line's first word.
    var command = "stream"
    var read = 0
    var processed = 0
    var dropped = 0
    var failed = 0
    /// Left out by `--every` / `--fps`; nil when not sampling.
    var skipped: Int?
    var framesPerSecond: Double?
    var reconnections = 0
    /// The signal that stopped the run (SIGINT, SIGTERM, SIGHUP): the frames read were
    /// finished and the video finalised.
    var stoppedBy: Int32?
    /// The `--output` video and its frame count, once finished.
    var video: (path: String, frames: Int)?
    var streamError: StreamError?
    /// Set when a JSON line or annotated frame could not be written: the run stopped there.
    var outputError: StreamOutput.Failure?
    /// The `--output` video could not be written or finished: the run stopped there.
    var videoError: VideoError?

    var description: String {
        "\(command): \(read) frames read, \(processed) processed, \(dropped) dropped, \(failed) failed"
            + (skipped.map { ", \($0) skipped by sampling" } ?? "")
            + (reconnections > 0 ? ", \(reconnections) reconnection\(reconnections == 1 ? "" : "s")" : "")
            + (framesPerSecond.map { String(format: ", %.2f fps", $0) } ?? "")
            + (video.map { "; \($0.path): \($0.frames) frames" } ?? "")
            + (stoppedBy.map { " (stopped by \(Self.signalName($0)))" } ?? "")
    }

    static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        case SIGHUP: return "SIGHUP"
        default: return "signal \(signal)"
        }
    }
}
