import ArgumentParser
import CommandSupport
import Darknet
import Foundation
import Imaging
import YOLO

struct Stream: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Detect objects in a stream of frames on stdin (MJPEG or raw RGB24).",
        discussion: """
        Frames are concatenated JPEG files (ffmpeg -i video.mp4 -f image2pipe -c:v mjpeg -) or, \
        with --raw WxH, raw RGB24 frames (ffmpeg ... -f rawvideo -pix_fmt rgb24 -). Each frame \
        gives one JSON line as soon as it is done: {"frame", "width", "height", "latency", "fps", \
        "dropped", "detections"}; frame numbers count input frames from 0 (gaps are dropped \
        frames); latency is the seconds from the frame's last byte being read to its line; fps \
        is the running rate over the last 30 frames. A frame that cannot be used gives \
        {"frame", "error"}; a corrupt or cut MJPEG frame costs that frame only (the next starts \
        at its FF D8 FF). With --track each detection has an "id" that follows the object.

        JSON Lines go to stdout, or to --jsonl FILE; with --annotate-pipe stdout carries the \
        annotated frames as MJPEG (for ffplay -f mjpeg - or ffmpeg -f mjpeg -i -) and the JSON \
        lines go to stderr unless --jsonl is given. By default every frame is processed \
        (offline); --drop keeps only the newest waiting frame (real time) and counts the \
        others as dropped. Exit status: 0 done (or the reader of stdout went away), 1 a frame \
        failed, the stream was cut or a write failed, 2 usage or model error.
        """
    )

    @OptionGroup var files: ModelArguments

    @Option(help: "Frames are raw RGB24 of this size (e.g. 640x480) instead of MJPEG.")
    var raw: String?

    @Option(help: "Largest MJPEG frame accepted, in bytes.")
    var maxFrameBytes: Int = 64 << 20

    @Option(help: "Average each object's box over the last N frames (matched by class and IoU).")
    var smooth: Int?

    @Flag(help: "Give each detection an \"id\" that follows the object across frames (greedy IoU per class).")
    var track = false

    @Flag(help: "Drop waiting frames, keeping only the newest (real time).")
    var drop = false

    @Option(help: "Write annotated frames as frame-000000.jpg, ... into this folder.")
    var annotateTo: String?

    @Flag(help: "Write annotated frames to stdout as MJPEG (JSON lines then go to stderr or --jsonl).")
    var annotatePipe = false

    @Option(help: "Write the JSON lines to this file.")
    var jsonl: String?

    @Flag(help: "Overwrite an existing --jsonl file and frame files in --annotate-to.")
    var force = false

    @OptionGroup var detection: DetectionOptions<Words>

    @OptionGroup var size: SizeOption<DetectorSize>

    @OptionGroup var threads: ThreadsOption

    @Flag(help: "No summary on stderr.")
    var quiet = false

    func validate() throws {
        if let raw, Self.rawSize(raw) == nil { throw ValidationError("--raw must be WxH (e.g. 640x480), got \(raw)") }
        if let smooth, smooth < 1 { throw ValidationError("--smooth must be ≥ 1") }
        // At most what any image read from a stream may be (FileBytes.streamLimit, 1 GiB).
        if maxFrameBytes < 1024 || maxFrameBytes > 1 << 30 { throw ValidationError("--max-frame-bytes must be 1024...\(1 << 30), got \(maxFrameBytes)") }
    }

    static func rawSize(_ text: String) -> (width: Int, height: Int)? {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0,
              !w.multipliedReportingOverflow(by: h).overflow, w * h <= Image.defaultMaxPixels else { return nil }
        return (w, h)
    }

    static let terminalHint = "stream reads MJPEG or raw RGB24 frames from stdin, which is a terminal: pipe them in, "
        + "e.g. ffmpeg -i video.mp4 -f image2pipe -c:v mjpeg - | darknet-swift stream CFG WEIGHTS (Ctrl-D ends)"

    func run() throws {
        if isatty(0) == 1 { warn(Self.terminalHint) }
        let session: StreamSession
        do {
            let rawFrame = raw.flatMap(Self.rawSize)
            if let rawFrame { try FrameReader.checkRawSize(descriptor: 0, width: rawFrame.width, height: rawFrame.height) }
            let targets = try openTargets()
            let loader = ModelLoader(cfg: files.cfg, weights: files.weights,
                                     options: ModelOptions(size: size.size, threads: threads.threads))
            let detector = try loader.detector(detection.detectorOptions)
            let classNames = try loader.classNames(detection.names, classes: detector.classCount)
            let filter = try detection.filter(names: classNames)
            let kind: FrameReader.Kind = rawFrame.map { .raw(width: $0.width, height: $0.height) } ?? .mjpeg
            session = StreamSession(detector: detector, filter: filter, names: classNames, smoother: smooth.map { BoxSmoother(window: $0) },
                                    tracker: track ? ObjectTracker() : nil, targets: targets,
                                    reader: FrameReader(kind: kind, maxFrameBytes: maxFrameBytes))
        } catch {
            _ = fail(error)
            throw ExitCode(2)
        }
        let summary = session.run(drop: drop)
        switch summary.outputError {
        case .closed?: return  // the reader of our output went away: nothing more to say
        case let error?:
            _ = fail(error)
            throw ExitCode(1)
        case nil: break
        }
        if !quiet && !(annotatePipe && jsonl == nil) { warn(summary.description) }
        if let error = summary.streamError { _ = fail(error) }
        if summary.failed > 0 || summary.streamError != nil { throw ExitCode(1) }
    }

    /// Checks and opens the outputs before the model loads: `--annotate-to` must be a folder
    /// holding no frame files and `--jsonl` must not exist, unless `--force`.
    private func openTargets() throws -> StreamTargets {
        if let annotateTo {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: annotateTo, isDirectory: &isFolder) {
                guard isFolder.boolValue else { throw CLIError.usage("--annotate-to \(annotateTo): a file, not a folder") }
                let frames = try FolderWalker.entries(of: RawPath(argument: annotateTo)).map(\.display).filter(Self.isFrameFile).sorted()
                if !force, let first = frames.first {
                    throw AnnotationTargets.Error.exists((annotateTo as NSString).appendingPathComponent(first))
                }
            } else {
                try AnnotationTargets.createFolder(RawPath(argument: annotateTo))
            }
        }
        let lines: StreamOutput
        if let jsonl {
            let inputs = [files.cfg, files.weights].map(RawPath.init(argument:))
            lines = StreamOutput(descriptor: try OutputFile.open(RawPath(argument: jsonl), replacing: force, inputs: inputs), name: jsonl)
        } else {
            lines = annotatePipe ? .standardError : .standardOutput
        }
        return StreamTargets(lines: lines, annotateTo: annotateTo, annotatePipe: annotatePipe, force: force)
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
