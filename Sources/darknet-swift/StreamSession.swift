import Darknet
import Foundation
import Imaging
import YOLO

/// A frame read from stdin, with the time it was read (for the latency).
struct Frame: Sendable {
    var index: Int
    var bytes: [UInt8]
    var arrival: UInt64
}

/// The outcome of `stream`.
struct StreamSummary: CustomStringConvertible {
    var read = 0
    var processed = 0
    var dropped = 0
    var failed = 0
    var framesPerSecond: Double?
    var streamError: Error?

    var description: String {
        "stream: \(read) frames read, \(processed) processed, \(dropped) dropped, \(failed) failed"
            + (framesPerSecond.map { String(format: ", %.2f fps", $0) } ?? "")
    }
}

/// `stream`'s loop: a reader thread splits stdin into frames and queues them (at most two
/// waiting; with `drop`, only the newest one waits and older ones are dropped); this thread
/// decodes, detects, smooths and writes one JSON line (and annotated frame) per frame.
final class StreamSession: @unchecked Sendable {
    let detector: Detector
    let filter: DetectionFilter
    let names: [String]
    var smoother: BoxSmoother?
    let lines: FileHandle
    let annotateTo: String?
    let annotatePipe: Bool
    /// Only the reader thread touches `reader` while a session runs (a mutating `next()` on a
    /// struct is an access to the whole property); this thread uses `kind`, copied at init.
    var reader: FrameReader
    let kind: FrameReader.Kind
    private var meter = FrameRateMeter(window: 30)
    private var summary = StreamSummary()
    /// Shared with the reader thread: frames it dropped and the error that ended the stream.
    private let droppedLock = NSLock()
    private var dropped = 0
    private var readError: Error?

    init(detector: Detector, filter: DetectionFilter, names: [String], smoother: BoxSmoother?, lines: FileHandle,
         annotateTo: String?, annotatePipe: Bool, reader: FrameReader) {
        self.detector = detector
        self.filter = filter
        self.names = names
        self.smoother = smoother
        self.lines = lines
        self.annotateTo = annotateTo
        self.annotatePipe = annotatePipe
        self.reader = reader
        self.kind = reader.kind
    }

    func run(drop: Bool) -> StreamSummary {
        let queue = BoundedQueue<Frame>(capacity: drop ? 1 : 2)
        let readerThread = Worker("read") { [self] in
            do {
                while let bytes = try reader.next() {
                    let frame = Frame(index: reader.framesRead - 1, bytes: bytes, arrival: DispatchTime.now().uptimeNanoseconds)
                    if drop {
                        let lost = queue.pushDroppingOldest(frame)
                        droppedLock.withLock { dropped += lost }
                    } else {
                        queue.push(frame)
                    }
                }
            } catch {
                droppedLock.withLock { readError = error }
            }
            queue.close()
        }
        while let frame = queue.pop() { process(frame) }
        readerThread.join()
        summary.streamError = droppedLock.withLock { readError }
        summary.read = reader.framesRead
        summary.dropped = droppedLock.withLock { dropped }
        summary.framesPerSecond = meter.framesPerSecond
        return summary
    }

    private func process(_ frame: Frame) {
        do {
            var image: Image
            if case .raw(let width, let height) = kind {
                image = Image(rgb24: frame.bytes, width: width, height: height)
            } else {
                image = try Image(decoding: frame.bytes, name: "frame \(frame.index)")
            }
            var detections = filter.apply(try detector.detect(in: image))
            if var smoothing = smoother {
                detections = smoothing.update(detections)
                smoother = smoothing
            }
            let now = DispatchTime.now().uptimeNanoseconds
            meter.record(start: Double(frame.arrival) / 1e9, end: Double(now) / 1e9)
            let latency = Double(now - frame.arrival) / 1e9
            let fps = meter.framesPerSecond.map { JSONReport.number(double: $0) } ?? "null"
            let dropped = droppedLock.withLock { self.dropped }
            let line = "{\"frame\":\(frame.index),\"width\":\(image.width),\"height\":\(image.height),"
                + "\"latency\":\(JSONReport.number(double: latency)),\"fps\":\(fps),"
                + "\"dropped\":\(dropped),"
                + "\"detections\":\(JSONReport.detections(detections, width: image.width, height: image.height, names: names))}\n"
            lines.write(Data(line.utf8))
            if annotateTo != nil || annotatePipe {
                Annotator.draw(detections, on: &image, names: names, classes: detector.classCount)
                if let annotateTo {
                    try image.write(to: (annotateTo as NSString).appendingPathComponent(String(format: "frame-%06d.jpg", frame.index)))
                }
                if annotatePipe { FileHandle.standardOutput.write(Data(try image.jpegData(quality: 85, name: "frame \(frame.index)"))) }
            }
            summary.processed += 1
        } catch {
            summary.failed += 1
            let line = "{\"frame\":\(frame.index),\"error\":\(JSONReport.quoted(String(describing: error)))}\n"
            lines.write(Data(line.utf8))
        }
    }
}
