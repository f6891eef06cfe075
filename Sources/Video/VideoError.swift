#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything that can go wrong finding `ffmpeg`, reading a source or writing a video. Each
/// case names the source (as the user gave it) or the output path, and what was expected.
public enum VideoError: Error, Equatable, CustomStringConvertible {
    /// No executable `ffmpeg` in any folder of `PATH` (the folders searched).
    case ffmpegMissing(searched: [String])
    /// `ffmpeg -version` could not be run or did not say its version.
    case ffmpegUnusable(path: String, reason: String)
    /// The version found is older than the one whose options are used.
    case ffmpegTooOld(path: String, version: String, minimum: String)
    /// `posix_spawn` failed (errno).
    case spawnFailed(program: String, code: Int32)
    /// A file or device source that does not exist (checked before ffmpeg runs).
    case sourceMissing(String)
    /// The source has no video stream (an audio file, a subtitle file).
    case noVideoStream(String)
    /// ffmpeg exited with a failure status before the source ended; `message` is its last error line.
    case decoderFailed(source: String, status: Int32, message: String)
    /// The decoding ffmpeg died of a signal it did not get from us (`kill -9`, the OOM killer).
    case decoderKilled(source: String, signal: Int32, frames: Int)
    /// A live source (network stream, camera) ended: the server closed the connection, the
    /// camera went away. `message` is ffmpeg's last error line, if any.
    case disconnected(source: String, frames: Int, message: String)
    /// No frame came for `seconds`.
    case stalled(source: String, seconds: Double, frames: Int)
    /// ffmpeg's frame bytes and its frame description disagree (a frame cut short).
    case badFrame(source: String, frame: Int, reason: String)
    /// The output's extension names no container this writer knows.
    case unsupportedOutput(path: String)
    /// A frame whose size differs from the video's first frame (a video has one size).
    case frameSizeChanged(path: String, expected: String, got: String)
    /// The encoding ffmpeg failed (status, or the signal as a negative number) or its input pipe broke.
    case encoderFailed(path: String, status: Int32, message: String)
    /// The finished video could not be renamed into place (errno).
    case renameFailed(path: String, code: Int32)

    public var description: String {
        switch self {
        case .ffmpegMissing(let searched):
            return "ffmpeg was not found on PATH (\(searched.isEmpty ? "PATH is empty" : searched.joined(separator: ":"))): "
                + "install it (Debian/Ubuntu: apt-get install ffmpeg; macOS: brew install ffmpeg)"
        case .ffmpegUnusable(let path, let reason):
            return "\(path) -version: \(reason)"
        case .ffmpegTooOld(let path, let version, let minimum):
            return "\(path) is FFmpeg \(version); video sources need FFmpeg \(minimum) or later"
        case .spawnFailed(let program, let code):
            return "cannot run \(program): \(String(cString: strerror(code)))"
        case .sourceMissing(let source):
            return "\(source): no such file or device"
        case .noVideoStream(let source):
            return "\(source): no video stream (ffmpeg found none to decode)"
        case .decoderFailed(let source, let status, let message):
            return "\(source): ffmpeg failed (exit status \(status))" + (message.isEmpty ? "" : ": \(message)")
        case .decoderKilled(let source, let signal, let frames):
            return "\(source): the decoding ffmpeg was killed by signal \(signal) (\(signalName(signal))) after \(frames) frames"
        case .disconnected(let source, let frames, let message):
            return "\(source): the source ended after \(frames) frames (disconnected)" + (message.isEmpty ? "" : ": \(message)")
        case .stalled(let source, let seconds, let frames):
            return "\(source): no frame for \(formatSeconds(seconds)) s after \(frames) frames (stalled; see --timeout)"
        case .badFrame(let source, let frame, let reason):
            return "\(source): frame \(frame): \(reason)"
        case .unsupportedOutput(let path):
            return "\(path): unknown video extension (use .mp4, .mkv, .mov, .avi or .webm)"
        case .frameSizeChanged(let path, let expected, let got):
            return "\(path): a \(got) frame cannot go into a \(expected) video"
        case .encoderFailed(let path, let status, let message):
            let how = status < 0 ? "was killed by signal \(-status) (\(signalName(-status)))" : "failed (exit status \(status))"
            return "\(path): the encoding ffmpeg \(how)" + (message.isEmpty ? "" : ": \(message)")
        case .renameFailed(let path, let code):
            return "\(path): cannot rename the finished video into place: \(String(cString: strerror(code)))"
        }
    }
}

/// `SIGKILL`, `SIGTERM`, …: the names users see in `kill -l`.
func signalName(_ signal: Int32) -> String {
    switch signal {
    case SIGHUP: return "SIGHUP"
    case SIGINT: return "SIGINT"
    case SIGKILL: return "SIGKILL"
    case SIGSEGV: return "SIGSEGV"
    case SIGPIPE: return "SIGPIPE"
    case SIGTERM: return "SIGTERM"
    case SIGABRT: return "SIGABRT"
    default: return "signal \(signal)"
    }
}

/// "2", "0.5": seconds as the user typed them.
func formatSeconds(_ seconds: Double) -> String {
    seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
}
