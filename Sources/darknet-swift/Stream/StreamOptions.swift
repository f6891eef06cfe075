import ArgumentParser
import Video
import YOLO

/// `stream`'s options for where frames come from and which are detected: the stdin formats
/// (`--raw`, `--max-frame-bytes`), sampling (`--every`, `--fps`), pacing (`--realtime`) and a
/// live source's failures (`--reconnect`, `--timeout`). Checked against the source in
/// `StreamRun.check`.
struct StreamInputOptions: ParsableArguments {
    @Option(help: "Frames on stdin are raw, of this size and pixel format: WxH[:rgb24|bgr24|rgba|bgra|gray] (default: MJPEG).")
    var raw: String?

    @Option(help: "Largest MJPEG frame accepted on stdin, in bytes.")
    var maxFrameBytes: Int = 64 << 20

    @Option(help: "Detect in every Nth frame only (frames 0, N, 2N, …).")
    var every: Int?

    @Option(help: "Detect in at most F frames per second of the source's time.")
    var fps: Double?

    @Flag(help: "Read a file at its frame rate, as a camera delivers frames, dropping stale ones (to test live setups).")
    var realtime = false

    @Flag(help: "Reopen a camera or network source that fails, waiting 0.5 s, 1 s, 2 s, … up to 8 s between attempts.")
    var reconnect = false

    @Option(help: "Attempts in a row --reconnect makes before giving up.")
    var reconnectAttempts: Int = 10

    @Option(help: "Seconds to wait for a frame from a source before it counts as stalled.")
    var timeout: Double = 20

    func validate() throws {
        if let raw, RawFrameSpec(raw) == nil { throw ValidationError("\(RawFrameSpec.usage), got \(raw)") }
        // At most what any image read from a stream may be (FileBytes.streamLimit, 1 GiB).
        if maxFrameBytes < 1024 || maxFrameBytes > 1 << 30 { throw ValidationError("--max-frame-bytes must be 1024...\(1 << 30), got \(maxFrameBytes)") }
        if let every, every < 1 { throw ValidationError("--every must be ≥ 1") }
        if let fps, !(fps > 0) { throw ValidationError("--fps must be > 0") }
        if every != nil && fps != nil { throw ValidationError("give --every or --fps, not both") }
        if reconnectAttempts < 1 { throw ValidationError("--reconnect-attempts must be ≥ 1") }
        if !(timeout > 0) { throw ValidationError("--timeout must be > 0") }
    }

    var sampler: FrameSampler { FrameSampler(every: every, fps: fps) }
}

/// `--track` and its settings (`ObjectTracker`), and `--smooth` (`BoxSmoother`).
struct TrackingOptions: ParsableArguments {
    @Flag(help: "Give each detection an \"id\" that follows the object across frames (greedy IoU matching).")
    var track = false

    @Flag(help: "With --track: match objects whatever their class (a car seen as a truck keeps its id).")
    var trackAgnostic = false

    @Option(help: "With --track: frames an object may go unseen before it is forgotten (default 5).")
    var trackMemory: Int?

    @Option(help: "With --track: IoU above which a detection continues an object, 0…1 (default 0.3).")
    var trackIou: Float?

    @Option(help: "Average each object's box over the last N frames (matched by class and IoU).")
    var smooth: Int?

    func validate() throws {
        if !track && (trackAgnostic || trackMemory != nil || trackIou != nil) {
            throw ValidationError("--track-agnostic, --track-memory and --track-iou need --track")
        }
        if let trackMemory, trackMemory < 0 { throw ValidationError("--track-memory must be ≥ 0") }
        if let trackIou, !(0...1).contains(trackIou) { throw ValidationError("--track-iou must be in 0...1, got \(trackIou)") }
        if let smooth, smooth < 1 { throw ValidationError("--smooth must be ≥ 1") }
    }

    var tracker: ObjectTracker? {
        track ? ObjectTracker(iouThreshold: trackIou ?? 0.3, maxMissedFrames: trackMemory ?? 5, classAgnostic: trackAgnostic) : nil
    }

    var smoother: BoxSmoother? { smooth.map { BoxSmoother(window: $0) } }
}
