import CommandSupport
import Imaging
import Video

/// `--output FILE.mp4`: the annotated frames as a video at the source's size and frame rate
/// (`VideoWriter`), started at the first frame (when the size is known). A source without a
/// frame rate is written at `fallbackRate`, with a warning. Written under a temporary name
/// and renamed by `finish()`; `cancel()` removes it.
final class AnnotatedVideo {
    static let fallbackRate = FrameRate(numerator: 25, denominator: 1)!

    let path: String
    let ffmpeg: FFmpeg
    /// The source's frame rate, asked at the first frame (set once the source is open).
    var frameRate: @Sendable () -> FrameRate? = { nil }
    private var writer: VideoWriter?

    init(path: String, ffmpeg: FFmpeg) {
        self.path = path
        self.ffmpeg = ffmpeg
    }

    func append(_ image: Image, pts: Double?) throws(VideoError) {
        if writer == nil {
            let known = frameRate()
            let rate = known ?? Self.fallbackRate
            if known == nil { warn("warning: the source gives no frame rate: \(path) is written at \(rate.value) fps") }
            writer = try VideoWriter(path: path, width: image.width, height: image.height, frameRate: rate, ffmpeg: ffmpeg)
        }
        try writer?.append(image, pts: pts)
    }

    /// Finishes the file; returns its frame count (0 and no file when no frame came).
    func finish() throws(VideoError) -> Int {
        guard let writer else { return 0 }
        try writer.finish()
        return writer.framesWritten
    }

    func cancel() { writer?.cancel() }
}
