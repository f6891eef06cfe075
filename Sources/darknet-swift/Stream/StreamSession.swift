import CommandSupport
import Darknet
import Dispatch
import Foundation
import Imaging
import Video
import YOLO

/// Where `stream` writes: each frame's record to `lines` in `format`; annotated frames into
/// `annotateTo` as `frame-NNNNNN.jpg` (an existing file only with `force`), to stdout as MJPEG
/// (`annotatePipe`), into the `video` file, and to `preview`'s HTTP clients.
struct StreamTargets {
    var lines: StreamOutput
    var format: StreamLines = .json
    var annotateTo: String?
    var annotatePipe: Bool
    var force: Bool
    var video: AnnotatedVideo?
    var preview: PreviewServer?
}

/// `stream`'s loop: a reader thread takes frames from the source, leaves out those
/// `sampler` does not take (they still go to the `--output` video, drawn with the latest
/// detections), and queues the rest (at most two waiting; with `drop`, a new frame replaces
/// the one waiting, counted as dropped when it was to be detected; lost frames are never
/// dropped). This thread decodes, detects, tracks, smooths and writes one record (and
/// annotated frame) per frame in arrival order, taking the next waiting frame before it writes
/// a frame's record (so "its line is out" means "the engine has taken what was waiting"). A
/// failed write stops the run and the source.
final class StreamSession: @unchecked Sendable {
    let detector: Detector
    let filter: DetectionFilter
    let names: [String]
    var smoother: BoxSmoother?
    var tracker: ObjectTracker?
    let targets: StreamTargets
    /// Only the reader thread touches `reader` while a session runs (a mutating `next()` on a
    /// struct is an access to the whole property); this thread stops it through `stopSource`.
    var reader: any FrameSource
    private let stopSource: @Sendable () -> Void
    private var sampler: FrameSampler
    private var meter = FrameRateMeter(window: 30)
    private var summary: StreamSummary
    /// The detections (and ids) of the last detected frame, drawn on the frames sampling left out.
    private var latest: (detections: [Detection], ids: [Int]?) = ([], nil)
    /// The last detected frame's JSON record, for `targets.preview`.
    private var lastRecord: String?
    /// Shared with the reader thread: frames it dropped or left out, and the error that ended the stream.
    private let droppedLock = NSLock()
    private var dropped = 0
    private var skipped = 0
    private var framesRead = 0
    private var readError: StreamError?

    init(detector: Detector, filter: DetectionFilter, names: [String], smoother: BoxSmoother?, tracker: ObjectTracker?,
         targets: StreamTargets, reader: any FrameSource, stopSource: @escaping @Sendable () -> Void = {},
         sampler: FrameSampler = FrameSampler(), command: String = "stream") {
        self.detector = detector
        self.filter = filter
        self.names = names
        self.smoother = smoother
        self.tracker = tracker
        self.targets = targets
        self.reader = reader
        self.stopSource = stopSource
        self.sampler = sampler
        summary = StreamSummary(command: command)
    }

    func run(drop: Bool) -> StreamSummary {
        let queue = BoundedQueue<FrameItem>(capacity: 2)
        let readerThread = Worker("read") { [self] in read(into: queue, drop: drop) }
        var item = queue.pop()
        writing: while let current = item {
            var output = FrameOutput()
            switch current {
            case .frame(let frame): output = process(frame)
            case .lost(let index, let error):
                summary.failed += 1
                output.line = targets.format.error(index, error)
                if output.line == nil { output.warning = "frame \(index): \(error)" }
            }
            // The next waiting frame is taken before this frame's line is written: a frame that
            // arrives once the line is out never replaces one the engine had left waiting.
            let next = queue.tryPop()
            do throws(StreamOutput.Failure) {
                try write(output)
            } catch {
                summary.outputError = error
            }
            if summary.outputError != nil || summary.videoError != nil {
                // Stop the source (a live one never ends); the reader of stdin may be blocked in
                // read(2): do not wait for it.
                stopSource()
                queue.close()
                break writing
            }
            item = next ?? queue.pop()
        }
        if summary.outputError == nil && summary.videoError == nil { readerThread.join() }
        droppedLock.withLock {
            summary.streamError = readError
            summary.read = framesRead
            summary.dropped = dropped
            if sampler.isSampling { summary.skipped = skipped }
        }
        summary.framesPerSecond = meter.framesPerSecond
        finishVideo()
        return summary
    }

    /// The reader thread: takes items from the source until it ends or fails, leaves out the
    /// frames `sampler` does not take (passed on undetected when they go into the video), and
    /// queues the rest (with `drop`, replacing the waiting frames), then closes the queue.
    private func read(into queue: BoundedQueue<FrameItem>, drop: Bool) {
        let passThrough = targets.video != nil
        do throws(StreamError) {
            while let item = try reader.next() {
                droppedLock.withLock { framesRead = reader.framesRead }
                guard case .frame(var frame) = item else {
                    if drop { queue.pushReplacing(item) { _ in false } } else { queue.push(item) }
                    continue
                }
                frame.skippedBefore = droppedLock.withLock { skipped }
                if !sampler.takes(index: frame.index, pts: frame.pts) {
                    droppedLock.withLock { skipped += 1 }
                    guard passThrough else { continue }
                    frame.detect = false
                }
                if !drop {
                    queue.push(.frame(frame))
                } else {
                    var replaced = 0
                    queue.pushReplacing(.frame(frame)) {
                        guard case .frame(let waiting) = $0 else { return false }
                        if waiting.detect { replaced += 1 }
                        return true
                    }
                    droppedLock.withLock { dropped += replaced }
                }
            }
        } catch {
            droppedLock.withLock { readError = error }
        }
        queue.close()
    }

    /// What one frame gives: its record, its annotated JPEG for `--annotate-pipe`, and a
    /// message for stderr when the record format has no line for an error.
    private struct FrameOutput {
        var line: String?
        var annotated: [UInt8]?
        var warning: String?
    }

    private func write(_ output: FrameOutput) throws(StreamOutput.Failure) {
        if let line = output.line { try targets.lines.write(line) }
        if let warning = output.warning { warn(escapedForTerminal(warning)) }
        if let annotated = output.annotated { try StreamOutput.standardOutput.write(annotated) }
    }

    /// The `--output` video: finished when the run wrote everything it could (a source that
    /// failed part-way still gives the frames read), removed when an output failed.
    private func finishVideo() {
        guard let video = targets.video else { return }
        if summary.outputError != nil || summary.videoError != nil {
            video.cancel()
            return
        }
        do {
            let frames = try video.finish()
            if frames > 0 { summary.video = (video.path, frames) }
        } catch {
            summary.videoError = error
        }
    }

    /// Detects in one frame (or, left out by sampling, draws the latest detections on it for
    /// the video) and gives its record; a frame that cannot be decoded or annotated gives an
    /// error record. A failed video write is `videoError`.
    private func process(_ frame: Frame) -> FrameOutput {
        var output = FrameOutput()
        do {
            var image = try decode(frame)
            let start = DispatchTime.now().uptimeNanoseconds
            var detections = latest.detections, ids = latest.ids
            if frame.detect {
                detections = filter.apply(try detector.detect(in: image))
                ids = nil
                if var tracking = tracker {
                    ids = tracking.update(detections)
                    tracker = tracking
                }
                if var smoothing = smoother {
                    detections = smoothing.update(detections)
                    smoother = smoothing
                }
                latest = (detections, ids)
                let now = DispatchTime.now().uptimeNanoseconds
                meter.record(start: Double(frame.arrival) / 1e9, end: Double(now) / 1e9)
                let record = StreamLines.Record(frame: frame, width: image.width, height: image.height,
                                                latency: Double(now - min(now, frame.arrival)) / 1e9, fps: meter.framesPerSecond,
                                                dropped: droppedLock.withLock { dropped },
                                                skipped: sampler.isSampling ? frame.skippedBefore : nil,
                                                seconds: Double(now - start) / 1e9, detections: detections, ids: ids)
                output.line = targets.format.render(record, names: names)
                if targets.preview != nil { lastRecord = StreamLines.json.render(record, names: names) }
            }
            let annotatesFrame = frame.detect && (targets.annotateTo != nil || targets.annotatePipe || targets.preview != nil)
            if annotatesFrame || targets.video != nil {
                Annotator.draw(detections, on: &image, names: names, classes: detector.classCount, ids: ids)
                if frame.detect, let folder = targets.annotateTo {
                    let path = (folder as NSString).appendingPathComponent(String(format: "frame-%06d.jpg", frame.index))
                    try AtomicFile.write(try image.jpegData(quality: 90, name: path), to: RawPath(argument: path), replacing: targets.force)
                }
                if frame.detect && targets.annotatePipe { output.annotated = try image.jpegData(quality: 85, name: "frame \(frame.index)") }
                try targets.video?.append(image, pts: frame.pts)
            }
            if frame.detect, let preview = targets.preview, let record = lastRecord {
                preview.publish(jpeg: try image.jpegData(quality: 80, name: "frame \(frame.index)"), json: record)
            }
            if frame.detect { summary.processed += 1 }
        } catch let error as VideoError {
            summary.videoError = error
        } catch {
            summary.failed += 1
            output = FrameOutput(line: targets.format.error(frame.index, error))
            if output.line == nil { output.warning = "\(StreamLines.heading(labelForErrors, frame)): \(error)" }
        }
        return output
    }

    private var labelForErrors: String {
        if case .text(let label) = targets.format { return label }
        return "stream"
    }

    /// The frame as an RGB image: a JPEG decoded, raw bytes converted from their pixel format.
    private func decode(_ frame: Frame) throws -> Image {
        switch frame.pixels {
        case .encoded: return try Image(decoding: frame.bytes, name: "frame \(frame.index)")
        case .raw(let width, let height, let format): return try format.image(frame.bytes, width: width, height: height, name: "frame \(frame.index)")
        }
    }
}
