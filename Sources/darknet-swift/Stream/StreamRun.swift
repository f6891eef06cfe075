import ArgumentParser
import CommandSupport
import Darknet
import Foundation
import Video
import YOLO

/// One `stream` run, as `stream` and `detect` (on a video input) describe it: where frames
/// come from, which are detected, what follows each object, where the records and annotated
/// frames go. `run(model:)` is the entry point for any command that detects in a stream.
///
/// Order of a run: the outputs and the source are checked and opened first (`ffmpeg` found and
/// its version checked, an existing output refused without `force`, a missing file or device
/// named), then the model is loaded, then `StreamSession` runs. Exit statuses (thrown as
/// `ExitCode`): 2 for anything refused before the model loads and for a model error; 1 when
/// a frame failed, the source failed or ended early, or an output could not be written; 0
/// when done, and also when the reader of stdout went away; 128 + the signal when SIGINT,
/// SIGTERM or SIGHUP stopped a video source (the frames read were finished and the video
/// finalised).
struct StreamRun {
    enum Input {
        /// Frames on stdin (`FrameReader`).
        case standardInput(FrameReader.Kind, maxFrameBytes: Int)
        /// A file, camera, network stream or image sequence read by ffmpeg (`VideoSource`).
        case video(VideoInput)
    }

    /// What a run detects with: the detector, its class names and the filter after NMS.
    typealias Model = (detector: Detector, names: [String], filter: DetectionFilter)

    var input: Input
    var sourceOptions = VideoSource.Options()
    var sampler = FrameSampler()
    /// Keep only the newest waiting frame; nil: on for cameras, network streams and
    /// `sourceOptions.realtime`, off otherwise.
    var drop: Bool?
    var tracker: ObjectTracker?
    var smoother: BoxSmoother?
    var format: StreamLines = .json
    /// The annotated video to write (`--output`).
    var output: String?
    var annotateTo: String?
    var annotatePipe = false
    var jsonl: String?
    /// `--http [HOST:]PORT`: the annotated frames and the newest record over HTTP (`PreviewServer`).
    var http: String?
    /// The files the run reads (the cfg and the weights): no output may overwrite them, even with `force`.
    var inputs: [String] = []
    var force = false
    var quiet = false
    /// The summary line's first word.
    var command = "stream"

    var drops: Bool {
        if let drop { return drop }
        if case .video(let video) = input { return video.isLive || sourceOptions.realtime }
        return false
    }

    func run(model: () throws -> Model) throws {
        let session: StreamSession
        var source: OpenSource
        do {
            let targets = try openTargets()
            source = try openSource()
            targets.video?.frameRate = source.frameRate
            let loaded = try model()
            session = StreamSession(detector: loaded.detector, filter: loaded.filter, names: loaded.names, smoother: smoother,
                                    tracker: tracker, targets: targets, reader: source.reader, stopSource: source.stop,
                                    sampler: sampler, command: command)
        } catch {
            _ = fail(error)
            throw ExitCode(2)
        }
        session.targets.preview?.serve()
        var summary = session.run(drop: drops)
        session.targets.preview?.stop()
        summary.reconnections = source.reconnections()
        try report(summary)
    }

    /// An open source: its frames, how to stop it from another thread, its frame rate and
    /// reconnections (asked from any thread).
    private struct OpenSource {
        var reader: any FrameSource
        var stop: @Sendable () -> Void = {}
        var frameRate: @Sendable () -> FrameRate? = { nil }
        var reconnections: @Sendable () -> Int = { 0 }
    }

    private func report(_ summary: StreamSummary) throws {
        var summary = summary
        summary.stoppedBy = TemporaryFiles.stopSignal
        switch summary.outputError {
        case .closed?: return  // the reader of our output went away: nothing more to say
        case let error?:
            _ = fail(error)
            throw ExitCode(1)
        case nil: break
        }
        if let error = summary.videoError {
            _ = fail(error)
            throw ExitCode(1)
        }
        if !quiet && !(annotatePipe && jsonl == nil) { warn(summary.description) }
        if let error = summary.streamError { _ = fail(error) }
        if summary.failed > 0 || summary.streamError != nil { throw ExitCode(1) }
        if let signal = summary.stoppedBy { throw ExitCode(128 + signal) }
    }

    /// The frame source, how to stop it from another thread and its frame rate; a video source
    /// starts ffmpeg at once (so a missing file fails before the model loads, and decoding starts
    /// while it loads).
    private func openSource() throws -> OpenSource {
        switch input {
        case .standardInput(let kind, let maxFrameBytes):
            if case .raw(let spec) = kind { try FrameReader.checkRawSize(descriptor: 0, spec: spec) }
            return OpenSource(reader: FrameReader(kind: kind, maxFrameBytes: maxFrameBytes))
        case .video(let video):
            let source = try VideoSource(video, ffmpeg: try ffmpeg(), options: sourceOptions)
            return OpenSource(reader: VideoFrameSource(source: source), stop: { source.stop() }, frameRate: { source.frameRate },
                              reconnections: { source.reconnections })
        }
    }

    /// The ffmpeg of a video run (found once), with the graceful stop on signals armed.
    private func ffmpeg() throws -> FFmpeg {
        let ffmpeg = try FFmpeg.locate()
        TemporaryFiles.stopGracefully()
        return ffmpeg
    }

    /// Checks and opens the outputs before the model loads: `--annotate-to` must be a folder
    /// holding no frame files, and `--jsonl` and `--output` must not exist, unless `force`.
    private func openTargets() throws -> StreamTargets {
        if let annotateTo {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: annotateTo, isDirectory: &isFolder) {
                guard isFolder.boolValue else { throw CLIError.usage("--annotate-to \(annotateTo): a file, not a folder") }
                let frames = try FolderWalker.entries(of: RawPath(argument: annotateTo)).map(\.display).filter(Stream.isFrameFile).sorted()
                if !force, let first = frames.first {
                    throw AnnotationTargets.Error.exists((annotateTo as NSString).appendingPathComponent(first))
                }
            } else {
                try AnnotationTargets.createFolder(RawPath(argument: annotateTo))
            }
        }
        var video: AnnotatedVideo?
        if let output {
            guard case .video = input else { throw CLIError.usage(Self.outputNeedsVideo) }
            guard VideoWriter.formats[(output as NSString).pathExtension.lowercased()] != nil else {
                throw VideoError.unsupportedOutput(path: output)
            }
            try OutputFile.check(RawPath(argument: output), replacing: force, inputs: inputs.map(RawPath.init(argument:)))
            let folder = (output as NSString).deletingLastPathComponent
            if !folder.isEmpty && !FileManager.default.fileExists(atPath: folder) {
                throw CLIError.unreadable(output, "the folder \(folder) does not exist")
            }
            video = AnnotatedVideo(path: output, ffmpeg: try ffmpeg())
        }
        let lines: StreamOutput
        if let jsonl {
            let opened = try OutputFile.open(RawPath(argument: jsonl), replacing: force, inputs: inputs.map(RawPath.init(argument:)))
            lines = StreamOutput(descriptor: opened, name: jsonl)
        } else {
            lines = annotatePipe ? .standardError : .standardOutput
        }
        let preview = try http.map { try PreviewServer($0) }
        return StreamTargets(lines: lines, format: format, annotateTo: annotateTo, annotatePipe: annotatePipe, force: force, video: video,
                             preview: preview)
    }

    static let outputNeedsVideo = "--output needs a video source with a frame rate (a file, camera or stream URL); "
        + "frames on stdin: --annotate-pipe | ffmpeg -f mjpeg -i - out.mp4"
}
