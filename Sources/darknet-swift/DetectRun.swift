import Darknet
import Foundation
import Imaging
import YOLO

/// One image on its way through `detect`'s pipeline.
struct PipelineItem: @unchecked Sendable {
    var input: InputImage
    var image: Image?
    var error: Error?
    var result: ImageResult?
}

/// `detect`'s three stages: decode → inference → output (format + annotated image).
/// With `pipelined`, decoding and output run on their own threads joined by queues of one
/// image, so on 2 cores the decode of image i+1 and the drawing/writing of image i−1
/// overlap the network's forward pass of image i; otherwise the stages run one after another.
/// With `batch` > 1 inference takes up to `batch` decoded images at a time through one forward
/// pass (`Detector.detect(in: [Image])`); each image's inference time is its share of the batch's.
///
/// Memory: a decoded photo is 12 bytes a pixel (`Image`'s floats; dog.jpg 5.3 MB, a 12 MP photo
/// 144 MB), so few are kept. The queues hold one image each; a photo that is not drawn (no
/// `--output` or `--output-dir`) is dropped right after its forward pass; the annotated image is
/// drawn on the photo itself, not on a copy. Pipelined, up to four more photos are alive than
/// one after another, so `detect` does not pipeline a model whose memory bound `auto`'s choice
/// (`ModelDescription.autoIsMemoryBound`). Peak RSS, `--output-dir`, 2026-11-24, before → after:
/// yolov3 at 416 on 8 copies of dog.jpg 502,384 → 478,296 KiB (one after another; pipelined with
/// queues of one it was 497,324 KiB, twice the weights being 484,388); yolov3-tiny on six 12 MP
/// photos 761,572 → 580,800 KiB pipelined (2.12 → 1.51 s) and 447,552 → 306,504 KiB with
/// `--no-pipeline`.
final class DetectRun: @unchecked Sendable {
    let detector: Detector
    let filter: DetectionFilter
    var writer: ResultWriter
    let annotate: (InputImage) throws -> String?
    /// False when no annotated image is written: photos are then dropped after inference.
    let drawsImages: Bool
    let names: [String]
    let batch: Int
    var progress: Progress
    private(set) var succeeded = 0
    private(set) var failed = 0

    init(detector: Detector, filter: DetectionFilter, writer: ResultWriter, names: [String], batch: Int = 1,
         progress: Progress, drawsImages: Bool, annotate: @escaping (InputImage) throws -> String?) {
        self.detector = detector
        self.batch = batch
        self.filter = filter
        self.writer = writer
        self.names = names
        self.progress = progress
        self.annotate = annotate
        self.drawsImages = drawsImages
    }

    func run(_ inputs: [InputImage], pipelined: Bool) {
        writer.begin()
        if pipelined {
            let decoded = BoundedQueue<PipelineItem>(capacity: 1)
            let inferred = BoundedQueue<PipelineItem>(capacity: 1)
            let decoder = Worker("decode") {
                for input in inputs { decoded.push(Self.decode(input)) }
                decoded.close()
            }
            let output = Worker("output") { [self] in
                while let item = inferred.pop() { finish(consume item) }
            }
            var waiting: [PipelineItem] = []
            while let item = decoded.pop() {
                waiting.append(item)
                if waiting.count == batch {
                    var done = infer(waiting)
                    waiting.removeAll(keepingCapacity: true)
                    while !done.isEmpty { inferred.push(done.removeFirst()) }
                }
            }
            var done = infer(waiting)
            waiting.removeAll()
            while !done.isEmpty { inferred.push(done.removeFirst()) }
            inferred.close()
            decoder.join()
            output.join()
        } else {
            for first in stride(from: 0, to: inputs.count, by: batch) {
                var done = infer(inputs[first..<min(inputs.count, first + batch)].map(Self.decode))
                while !done.isEmpty { finish(done.removeFirst()) }
            }
        }
        writer.end()
        progress.finish()
    }

    static func decode(_ input: InputImage) -> PipelineItem {
        let start = DispatchTime.now().uptimeNanoseconds
        var item = PipelineItem(input: input)
        do { item.image = try Image(contentsOf: input.path) } catch { item.error = error }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        item.result = ImageResult(path: input.path, width: item.image?.width ?? 0, height: item.image?.height ?? 0,
                                  detections: [], decodeSeconds: seconds, inferenceSeconds: 0)
        return item
    }

    /// Detections of the decoded images among `items`, in one forward pass (items that failed
    /// to decode pass through).
    func infer(_ items: [PipelineItem]) -> [PipelineItem] {
        var items = items
        let ready = items.indices.filter { items[$0].image != nil && items[$0].error == nil }
        guard !ready.isEmpty else { return items }
        let start = DispatchTime.now().uptimeNanoseconds
        do {
            let found = try detector.detect(in: ready.compactMap { items[$0].image })
            for (index, detections) in zip(ready, found) { items[index].result?.detections = filter.apply(detections) }
        } catch {
            for index in ready { items[index].error = error }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 / Double(ready.count)
        for index in ready {
            items[index].result?.inferenceSeconds = seconds
            if !drawsImages { items[index].image = nil }
        }
        return items
    }

    /// Output stage: the format's record, the annotated image, counting and progress.
    func finish(_ item: consuming PipelineItem) {
        var error = item.error
        if error == nil, let result = item.result {
            do {
                try writer.write(result)
                // The item gives its photo up, so drawing on it does not copy it.
                if let target = try annotate(item.input), var annotated = item.image.take() {
                    Annotator.draw(result.detections, on: &annotated, names: names, classes: detector.classCount)
                    try annotated.write(to: target)
                }
            } catch let failure {
                error = failure
            }
        }
        if let error {
            failed += 1
            let message = String(describing: error)
            warn(message.hasPrefix(item.input.path) ? message : "\(item.input.path): \(message)")
        } else {
            succeeded += 1
        }
        progress.update(done: succeeded + failed)
    }
}

/// `--classes`, `--max-detections`: applied to the detector's output (after NMS).
struct DetectionFilter: Sendable {
    var classes: Set<Int>?
    var maxDetections: Int?

    func apply(_ detections: [Detection]) -> [Detection] {
        var kept = detections
        if let classes { kept = kept.filter { classes.contains($0.classId) } }
        if let maxDetections, kept.count > maxDetections {
            // Highest confidence first; ties keep the detector's order.
            kept = kept.enumerated().sorted { $0.element.confidence != $1.element.confidence
                ? $0.element.confidence > $1.element.confidence : $0.offset < $1.offset }
                .prefix(maxDetections).map(\.element)
        }
        return kept
    }

    /// Resolves `--classes dog,car` (names from the names file, or class numbers).
    static func classIds(_ list: String, names: [String]) throws -> Set<Int> {
        var ids = Set<Int>()
        for item in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
            if let index = names.firstIndex(of: item) {
                ids.insert(index)
            } else if let number = Int(item), number >= 0, number < names.count {
                ids.insert(number)
            } else {
                throw CLIError.usage("--classes: unknown class \"\(item)\"")
            }
        }
        return ids
    }
}
