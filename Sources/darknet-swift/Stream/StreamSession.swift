import CommandSupport
import Darknet
import Dispatch
import Foundation
import Imaging
import YOLO

/// The outcome of `stream`.
struct StreamSummary: CustomStringConvertible {
    var read = 0
    var processed = 0
    var dropped = 0
    var failed = 0
    var framesPerSecond: Double?
    var streamError: StreamError?
    /// Set when a JSON line or annotated frame could not be written: the run stopped there.
    var outputError: StreamOutput.Failure?

    var description: String {
        "stream: \(read) frames read, \(processed) processed, \(dropped) dropped, \(failed) failed"
            + (framesPerSecond.map { String(format: ", %.2f fps", $0) } ?? "")
    }
}

/// Where `stream` writes: JSON lines to `lines`; annotated frames into `annotateTo` as
/// `frame-NNNNNN.jpg` (an existing file only with `force`) and/or to stdout as MJPEG.
struct StreamTargets {
    var lines: StreamOutput
    var annotateTo: String?
    var annotatePipe: Bool
    var force: Bool
}

/// `stream`'s loop: a reader thread splits stdin into frames and queues them (at most two
/// waiting; with `drop`, a new frame replaces the one waiting, which is counted as dropped;
/// lost frames are never dropped); this thread decodes, detects, tracks, smooths and writes one
/// JSON line (and annotated frame) per frame in arrival order. A failed write stops the run.
final class StreamSession: @unchecked Sendable {
    let detector: Detector
    let filter: DetectionFilter
    let names: [String]
    var smoother: BoxSmoother?
    var tracker: ObjectTracker?
    let targets: StreamTargets
    /// Only the reader thread touches `reader` while a session runs (a mutating `next()` on a
    /// struct is an access to the whole property); this thread uses `kind`, copied at init.
    var reader: FrameReader
    let kind: FrameReader.Kind
    private var meter = FrameRateMeter(window: 30)
    private var summary = StreamSummary()
    /// Shared with the reader thread: frames it dropped and the error that ended the stream.
    private let droppedLock = NSLock()
    private var dropped = 0
    private var framesRead = 0
    private var readError: StreamError?

    init(detector: Detector, filter: DetectionFilter, names: [String], smoother: BoxSmoother?, tracker: ObjectTracker?,
         targets: StreamTargets, reader: FrameReader) {
        self.detector = detector
        self.filter = filter
        self.names = names
        self.smoother = smoother
        self.tracker = tracker
        self.targets = targets
        self.reader = reader
        self.kind = reader.kind
    }

    func run(drop: Bool) -> StreamSummary {
        let queue = BoundedQueue<FrameReader.Item>(capacity: 2)
        let readerThread = Worker("read") { [self] in
            do throws(StreamError) {
                while let item = try reader.next() {
                    droppedLock.withLock { framesRead = reader.framesRead }
                    if !drop {
                        queue.push(item)
                    } else if case .frame = item {
                        let replaced = queue.pushReplacing(item) { if case .frame = $0 { true } else { false } }
                        droppedLock.withLock { dropped += replaced }
                    } else {
                        queue.pushReplacing(item) { _ in false }
                    }
                }
            } catch {
                droppedLock.withLock { readError = error }
            }
            queue.close()
        }
        writing: while let item = queue.pop() {
            do throws(StreamOutput.Failure) {
                switch item {
                case .frame(let frame): try process(frame)
                case .lost(let index, let error):
                    summary.failed += 1
                    try targets.lines.write("{\"frame\":\(index),\"error\":\(JSONReport.quoted(String(describing: error)))}\n")
                }
            } catch {
                // The reader may be blocked in read(2) on a live source: stop without waiting for it.
                summary.outputError = error
                queue.close()
                break writing
            }
        }
        if summary.outputError == nil { readerThread.join() }
        droppedLock.withLock {
            summary.streamError = readError
            summary.read = framesRead
            summary.dropped = dropped
        }
        summary.framesPerSecond = meter.framesPerSecond
        return summary
    }

    /// Detects in one frame and writes its line; only a failed write throws (a frame that
    /// cannot be decoded or annotated gives an error line).
    private func process(_ frame: Frame) throws(StreamOutput.Failure) {
        var line: String
        var annotated: [UInt8]?
        do {
            var image: Image
            if case .raw(let width, let height) = kind {
                image = Image(rgb24: frame.bytes, width: width, height: height)
            } else {
                image = try Image(decoding: frame.bytes, name: "frame \(frame.index)")
            }
            var detections = filter.apply(try detector.detect(in: image))
            var ids: [Int]?
            if var tracking = tracker {
                ids = tracking.update(detections)
                tracker = tracking
            }
            if var smoothing = smoother {
                detections = smoothing.update(detections)
                smoother = smoothing
            }
            let now = DispatchTime.now().uptimeNanoseconds
            meter.record(start: Double(frame.arrival) / 1e9, end: Double(now) / 1e9)
            let latency = Double(now - min(now, frame.arrival)) / 1e9
            let fps = meter.framesPerSecond.map { JSONReport.number(double: $0) } ?? "null"
            let dropped = droppedLock.withLock { self.dropped }
            line = "{\"frame\":\(frame.index),\"width\":\(image.width),\"height\":\(image.height),"
                + "\"latency\":\(JSONReport.number(double: latency)),\"fps\":\(fps),"
                + "\"dropped\":\(dropped),"
                + "\"detections\":\(JSONReport.detections(detections, width: image.width, height: image.height, names: names, ids: ids))}\n"
            if targets.annotateTo != nil || targets.annotatePipe {
                Annotator.draw(detections, on: &image, names: names, classes: detector.classCount, ids: ids)
                if let folder = targets.annotateTo {
                    let path = (folder as NSString).appendingPathComponent(String(format: "frame-%06d.jpg", frame.index))
                    try AtomicFile.write(try image.jpegData(quality: 90, name: path), to: RawPath(argument: path), replacing: targets.force)
                }
                if targets.annotatePipe { annotated = try image.jpegData(quality: 85, name: "frame \(frame.index)") }
            }
            summary.processed += 1
        } catch {
            summary.failed += 1
            line = "{\"frame\":\(frame.index),\"error\":\(JSONReport.quoted(String(describing: error)))}\n"
        }
        try targets.lines.write(line)
        if let annotated { try StreamOutput.standardOutput.write(annotated) }
    }
}
