import ArgumentParser
import CommandSupport
import Darknet
import Foundation
import Video
import YOLO

struct Stream: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Detect objects in videos, cameras, network streams or frames on stdin.",
        discussion: """
        SOURCE is a video file (mp4, mkv, avi, mov, webm, …), a camera (/dev/video0, or its \
        number: 0), a network stream (rtsp://, http(s):// MJPEG or HLS, rtmp://, srt://) or an \
        image sequence (frame-%04d.png), decoded by the ffmpeg program (5.1 or later, on PATH). \
        Without SOURCE (or with -), frames come on stdin: concatenated JPEG files (ffmpeg ... -f \
        image2pipe -c:v mjpeg -) or, with --raw WxH[:FORMAT], raw frames (ffmpeg ... -f rawvideo \
        -pix_fmt rgb24 -). Each frame gives one JSON line as soon as it is done: {"frame", "pts", \
        "time", "width", "height", "latency", "fps", "dropped", "detections"}; pts is the \
        source's timestamp in seconds (null on stdin), time the wall-clock time the frame was \
        read; frame numbers count the source's frames from 0 (gaps are dropped or sampled-out \
        frames). A frame that cannot be used gives {"frame", "error"}. With --track each \
        detection has an "id" that follows the object.

        JSON Lines go to stdout, or to --jsonl FILE; --output FILE.mp4 writes the annotated \
        video at the source's size and frame rate (finished and renamed into place at the end, \
        also when SIGINT or SIGTERM stops the run). With --annotate-pipe stdout carries the \
        annotated frames as MJPEG and the JSON lines go to stderr unless --jsonl is given. A \
        file is read whole (every frame processed); cameras, network streams and --realtime \
        keep only the newest waiting frame (--no-drop processes every one). A live source that \
        fails is an error unless --reconnect. Exit status: 0 done (or the reader of stdout went \
        away), 1 a frame or the source failed or a write failed, 2 usage, source or model \
        error, 128+N stopped by signal N (the video finalised).
        """
    )

    @OptionGroup var files: ModelArguments

    @Argument(help: ArgumentHelp("Video file, camera (/dev/video0 or 0), stream URL or image sequence (frame-%04d.png); default: stdin.",
                                 valueName: "source"))
    var source: String?

    @OptionGroup var input: StreamInputOptions

    @OptionGroup var tracking: TrackingOptions

    @Flag(inversion: .prefixedNo, help: "Drop waiting frames, keeping only the newest (default: on for cameras, network streams and --realtime).")
    var drop: Bool?

    @Option(help: "Write the annotated video to this file (.mp4, .mkv, .mov, .avi or .webm), at the source's size and frame rate.")
    var output: String?

    @Option(help: "Write annotated frames as frame-000000.jpg, ... into this folder.")
    var annotateTo: String?

    @Flag(help: "Write annotated frames to stdout as MJPEG (JSON lines then go to stderr or --jsonl).")
    var annotatePipe = false

    @Option(help: "Write the JSON lines to this file.")
    var jsonl: String?

    @Option(help: ArgumentHelp("Serve the annotated frames (/mjpeg) and the newest JSON record (/json) over HTTP while the source runs, on 127.0.0.1:PORT or HOST:PORT.",
                               valueName: "[HOST:]PORT"))
    var http: [String] = []

    @Flag(help: "Overwrite an existing --jsonl or --output file and frame files in --annotate-to.")
    var force = false

    @OptionGroup var detection: DetectionOptions<Words>

    @OptionGroup var size: SizeOption<DetectorSize>

    @OptionGroup var threads: ThreadsOption

    @OptionGroup var arithmetic: PrecisionOption

    @Flag(help: "No summary on stderr.")
    var quiet = false

    /// The source named on the command line; nil for stdin (none, or `-`).
    var video: VideoInput? {
        guard let source, source != "-" else { return nil }
        return VideoInput(argument: source) ?? .file(source)
    }

    func validate() throws {
        if Set(http).count > 1 { throw ValidationError("--http given with different values (\(http.joined(separator: ", "))): one port serves /mjpeg and /json") }
        if let video {
            if input.raw != nil { throw ValidationError("--raw is for frames on stdin, not for a source (\(video))") }
            if input.reconnect && !video.isLive {
                throw ValidationError("--reconnect is for cameras and network streams, not for \(video)")
            }
        } else {
            if input.fps != nil {
                throw ValidationError("--fps needs a source with timestamps (a video file, camera or stream URL), not stdin: use --every N")
            }
            if input.realtime { throw ValidationError("--realtime paces a video file given as the source, not stdin") }
            if input.reconnect { throw ValidationError("--reconnect is for cameras and network streams, not stdin") }
            if output != nil { throw ValidationError(StreamRun.outputNeedsVideo) }
        }
    }

    static let terminalHint = "stream reads MJPEG or raw RGB24 frames from stdin, which is a terminal: pipe them in, "
        + "e.g. ffmpeg -i video.mp4 -f image2pipe -c:v mjpeg - | darknet-swift stream CFG WEIGHTS (Ctrl-D ends), "
        + "or name the source: darknet-swift stream CFG WEIGHTS video.mp4"

    func run() throws {
        var run = StreamRun(input: .standardInput(input.raw.flatMap(RawFrameSpec.init).map { .raw($0) } ?? .mjpeg,
                                                  maxFrameBytes: input.maxFrameBytes))
        if let video {
            run.input = .video(video)
        } else if isatty(0) == 1 {
            warn(Self.terminalHint)
        }
        run.sourceOptions = VideoSource.Options(realtime: input.realtime, timeout: input.timeout,
                                                reconnect: input.reconnect ? VideoSource.Reconnect(attempts: input.reconnectAttempts) : nil,
                                                onReconnect: Self.reportReconnection(attempts: input.reconnectAttempts))
        run.sampler = input.sampler
        run.inputs = [files.cfg, files.weights]
        run.drop = drop
        run.tracker = tracking.tracker
        run.smoother = tracking.smoother
        run.output = output
        run.annotateTo = annotateTo
        run.annotatePipe = annotatePipe
        run.jsonl = jsonl
        run.http = http.first
        run.force = force
        run.quiet = quiet
        try run.run {
            let loader = ModelLoader(cfg: files.cfg, weights: files.weights,
                                     options: ModelOptions(size: size.size, threads: threads.threads,
                                                           calibration: arithmetic.calibrationFile))
            let detector = try loader.detector(detection.detectorOptions)
            let names = try loader.classNames(detection.names, classes: detector.classCount)
            return (detector, names, try detection.filter(names: names))
        }
    }

    /// One warning line per reconnection: why, when and which attempt.
    static func reportReconnection(attempts: Int) -> @Sendable (VideoError, Int, Double) -> Void {
        { error, attempt, delay in
            warn("warning: \(escapedForTerminal(String(describing: error))); reconnecting in \(delay) s (attempt \(attempt) of \(attempts))")
        }
    }

    /// `frame-NNNNNN.jpg`, as `--annotate-to` names its files.
    static func isFrameFile(_ name: String) -> Bool {
        let utf8 = Array(name.utf8)
        return utf8.count == 16 && name.hasPrefix("frame-") && name.hasSuffix(".jpg") && utf8[6..<12].allSatisfy { (48...57).contains($0) }
    }
}

extension Stream {
    /// `stream` detects in frames; its help refers to `detect` for the input mapping's default.
    enum Words: DetectionWords {
        static let input = "frame"
        static let namesDefault = "coco.names beside the weights or cfg"
        static let mappingDefault = "as the cfg says, as detect"
    }
}
