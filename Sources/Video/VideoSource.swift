import Foundation

/// Frames of a video file, camera, network stream or image sequence, decoded by `ffmpeg`,
/// each with its timestamp: what an app feeds to `Detector.detect(in:)`.
///
/// ```swift
/// let source = try VideoSource(VideoInput(argument: "video.mp4")!, ffmpeg: FFmpeg.locate())
/// while let frame = try source.next() {
///     let detections = try detector.detect(in: frame.image())
///     print(frame.index, frame.pts ?? .nan, detections.count)
/// }
/// ```
///
/// Rules:
/// - Frames come in decoding order with the source's timestamps, every one of them (no frame
///   is repeated or dropped to a constant rate), as RGB24 at the source's size.
/// - `next()` returns nil at the end of a file or sequence, and after it has thrown (the end
///   and a failure are final). A live source (a camera, a network stream without a known
///   duration) does not end: its end is `disconnected`.
/// - Waiting longer than `Options.timeout` for a frame is `stalled` (ffmpeg is then killed).
/// - With `Options.reconnect`, a live source that fails (disconnected, stalled, ffmpeg
///   failed or killed, the device gone) is opened again after a delay that doubles from
///   `firstDelay` to `maximumDelay`, up to `attempts` times in a row (a frame read resets the
///   count); each attempt is reported to `Options.onReconnect` first. Frame numbers go on.
/// - `stop()` (from any thread) or `VideoProcesses.stopSources()` (from a signal handler) ends
///   the source: `next()` returns nil.
/// - No child outlives the source: `stop()`, the end, an error and `deinit` end ffmpeg.
public final class VideoSource: @unchecked Sendable {
    public struct Reconnect: Sendable, Equatable {
        public var attempts: Int
        public var firstDelay: Double
        public var maximumDelay: Double

        public init(attempts: Int = 10, firstDelay: Double = 0.5, maximumDelay: Double = 8) {
            self.attempts = attempts
            self.firstDelay = firstDelay
            self.maximumDelay = maximumDelay
        }

        /// Seconds before attempt `attempt` (1, 2, …): `firstDelay · 2^(attempt−1)`, at most `maximumDelay`.
        public func delay(attempt: Int) -> Double {
            min(maximumDelay, firstDelay * Double(1 << min(max(attempt - 1, 0), 30)))
        }
    }

    public struct Options: Sendable {
        /// Read a file or sequence at its frame rate (`ffmpeg -re`), as a camera delivers frames.
        public var realtime = false
        /// Seconds to wait for a frame (the first one included) before the source is `stalled`.
        public var timeout: Double = 20
        /// Reopen a live source that fails; nil: its failure is thrown.
        public var reconnect: Reconnect?
        /// Told of each reconnection before its delay: the error, the attempt (1, 2, …) and the delay.
        public var onReconnect: (@Sendable (VideoError, Int, Double) -> Void)?

        public init(realtime: Bool = false, timeout: Double = 20, reconnect: Reconnect? = nil,
                    onReconnect: (@Sendable (VideoError, Int, Double) -> Void)? = nil) {
            self.realtime = realtime
            self.timeout = timeout
            self.reconnect = reconnect
            self.onReconnect = onReconnect
        }
    }

    public let input: VideoInput
    public let ffmpeg: FFmpeg
    public let options: Options
    private var session: DecoderSession?
    private let lock = NSLock()
    private var stopped = false
    /// `next()` returned nil or threw: it returns nil from then on.
    private var ended = false
    /// Frames returned so far (any thread may ask).
    public var framesRead: Int { lock.withLock { counts.frames } }
    /// Reconnections made so far (any thread may ask).
    public var reconnections: Int { lock.withLock { counts.reconnections } }
    private var counts = (frames: 0, reconnections: 0)
    /// The source's frame rate, as ffmpeg states it (known once the first frame is read; nil
    /// for a source that has none, such as a variable-rate stream). Any thread may ask.
    public var frameRate: FrameRate? { lock.withLock { rate } }
    private var rate: FrameRate?

    /// Starts ffmpeg on `input` (a file or device that does not exist fails here).
    public init(_ input: VideoInput, ffmpeg: FFmpeg, options: Options = Options()) throws(VideoError) {
        self.input = input
        self.ffmpeg = ffmpeg
        self.options = options
        session = try DecoderSession(ffmpeg: ffmpeg, input: input, realtime: options.realtime)
    }

    deinit { session?.stop() }

    /// The next frame; nil at the end (or after `stop`). Throws when the source fails (after
    /// the reconnections allowed).
    public func next() throws(VideoError) -> VideoFrame? {
        var attempt = 0
        while true {
            if ended || isStopped { return nil }
            do {
                let current: DecoderSession
                if let open = lock.withLock({ session }) { current = open } else {
                    current = try DecoderSession(ffmpeg: ffmpeg, input: input, realtime: options.realtime)
                    // A stop while it started did not see it: honour it here.
                    if lock.withLock({ session = current; return stopped }) || VideoProcesses.stopRequested {
                        close()
                        return nil
                    }
                }
                guard let (info, bytes) = try current.next(timeout: options.timeout, framesSoFar: framesRead) else {
                    close()
                    ended = true
                    return nil
                }
                let index = lock.withLock { () -> Int in
                    if rate == nil { rate = current.frameRate }
                    defer { counts.frames += 1 }
                    return counts.frames
                }
                return VideoFrame(index: index, pts: info.pts, width: info.width, height: info.height, pixels: bytes)
            } catch {
                close()
                guard let policy = options.reconnect, input.isLive, attempt < policy.attempts, !isStopped,
                      !Self.isPermanent(error) else {
                    ended = true
                    throw error
                }
                attempt += 1
                lock.withLock { counts.reconnections += 1 }
                let delay = policy.delay(attempt: attempt)
                options.onReconnect?(error, attempt, delay)
                // Sleep in short steps so that a stop ends the wait.
                let deadline = Date().addingTimeInterval(delay)
                while Date() < deadline && !isStopped { usleep(20_000) }
            }
        }
    }

    /// Ends the source from any thread: ffmpeg is stopped and `next()` returns nil.
    public func stop() {
        let current = lock.withLock { () -> DecoderSession? in
            stopped = true
            return session
        }
        current?.stop()
    }

    private var isStopped: Bool { lock.withLock { stopped } || VideoProcesses.stopRequested }

    private func close() {
        let current = lock.withLock { () -> DecoderSession? in
            defer { session = nil }
            return session
        }
        current?.stop()
    }

    /// Errors that another attempt cannot mend: ffmpeg itself cannot run.
    private static func isPermanent(_ error: VideoError) -> Bool {
        switch error {
        case .ffmpegMissing, .ffmpegUnusable, .ffmpegTooOld, .spawnFailed, .noVideoStream: return true
        default: return false
        }
    }
}
