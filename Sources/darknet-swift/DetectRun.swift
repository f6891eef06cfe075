import Darknet
import Foundation
import Imaging
import YOLO

/// One input on its way through `detect`'s pipeline.
struct PipelineItem: @unchecked Sendable {
    var input: InputImage?
    /// The network input (`Detector.prepare`): all the forward pass needs of the photo.
    var networkInput: Image?
    /// The decoded photo, kept for drawing only with batches of one (nothing waits then).
    var photo: Image?
    /// The file's bytes, kept for drawing with larger batches: decoded again to draw.
    var encoded: [UInt8]?
    var error: Error?
    var result: ImageResult?
    /// `--skip-existing` found its annotated image: nothing was read.
    var skipped = false
    /// A problem with an input that is not one image (a folder that cannot be listed).
    var problemPath: String?
}

/// `detect`'s three stages: decode → inference → output (format + annotated image).
/// With `pipelined`, decoding and output run on their own threads joined by queues of one
/// image, so on 2 cores the decode of image i+1 and the drawing/writing of image i−1
/// overlap the network's forward pass of image i; otherwise the stages run one after another.
/// With `batch` > 1 inference takes up to `batch` images at a time through one forward pass;
/// each image's inference time is its share of the batch's (plus its letterbox).
///
/// Memory: a decoded photo is 12 bytes a pixel (`Image`'s floats; dog.jpg 5.3 MB, a 12 MP
/// photo 144 MB), so the decode stage letterboxes each photo into its network input at once
/// and lets the photo go: a batch waits as network inputs (2 MB each at 416), not photos.
/// Drawing needs the photo again: with batches of one it travels with its input (one photo
/// per queue); with larger batches the file's bytes travel and the output stage decodes them
/// again. A model whose Winograd choice is bound by memory (`autoIsMemoryBound`) is not
/// pipelined (see `Detect.run`).
///
/// When stdout cannot be written the run stops: no further input is read or run.
final class DetectRun: @unchecked Sendable {
    let detector: Detector
    let filter: DetectionFilter
    var writer: ResultWriter
    let targets: AnnotationTargets?
    let skipExisting: Bool
    let names: [String]
    let batch: Int
    var progress: Progress
    private(set) var succeeded = 0
    private(set) var failed = 0
    private(set) var skipped = 0
    /// Inputs that were not images and could not be expanded (unlistable folders).
    private(set) var problems = 0
    /// Why stdout could not be written, which stopped the run.
    private(set) var outputError: OutputError?
    private let stopLock = NSLock()
    private var stopped = false

    init(detector: Detector, filter: DetectionFilter, writer: ResultWriter, names: [String], batch: Int = 1,
         progress: Progress, targets: AnnotationTargets?, skipExisting: Bool) {
        self.detector = detector
        self.batch = batch
        self.filter = filter
        self.writer = writer
        self.names = names
        self.progress = progress
        self.targets = targets
        self.skipExisting = skipExisting
    }

    var isStopped: Bool { stopLock.withLock { stopped } }

    func run(_ source: AnyIterator<InputEvent>, pipelined: Bool) {
        do { try writer.begin() } catch { return stop(error) }
        if pipelined {
            let decoded = BoundedQueue<PipelineItem>(capacity: 1)
            let inferred = BoundedQueue<PipelineItem>(capacity: 1)
            let input = UncheckedBox(source)
            let decoder = Worker("decode") { [self] in
                while !isStopped, let event = input.value.next() { decoded.push(decode(event)) }
                decoded.close()
            }
            let output = Worker("output") { [self] in
                while let item = inferred.pop() { finish(consume item) }
            }
            var waiting: [PipelineItem] = []
            while let item = decoded.pop() {
                waiting.append(item)
                if waiting.count(where: { $0.networkInput != nil }) == batch {
                    for item in infer(waiting) { inferred.push(item) }
                    waiting.removeAll(keepingCapacity: true)
                }
            }
            for item in infer(waiting) { inferred.push(item) }
            inferred.close()
            decoder.join()
            output.join()
        } else {
            var waiting: [PipelineItem] = []
            while !isStopped, let event = source.next() {
                waiting.append(decode(event))
                if waiting.count(where: { $0.networkInput != nil }) == batch {
                    for item in infer(waiting) { finish(item) }
                    waiting.removeAll(keepingCapacity: true)
                }
            }
            for item in infer(waiting) { finish(item) }
        }
        if !isStopped {
            do { try writer.end() } catch { stop(error) }
        }
        progress.finish()
    }

    private func stop(_ error: OutputError) {
        stopLock.withLock {
            if !stopped { outputError = error }
            stopped = true
        }
    }

    /// Reads, decodes and letterboxes one input (nothing, with `--skip-existing`, when its
    /// annotated image exists).
    func decode(_ event: InputEvent) -> PipelineItem {
        guard case .image(let input) = event else {
            if case .problem(let path, let error) = event { return PipelineItem(error: error, problemPath: path) }
            return PipelineItem()
        }
        var item = PipelineItem(input: input)
        if skipExisting, let targets, targets.path(for: input).exists {
            item.skipped = true
            return item
        }
        let start = DispatchTime.now().uptimeNanoseconds
        var width = 0, height = 0, prepareSeconds = 0.0
        do {
            let bytes = try FileBytes.imageBytes(input.path)
            let photo = try Image(decoding: bytes, name: input.display)
            (width, height) = (photo.width, photo.height)
            let prepared = DispatchTime.now().uptimeNanoseconds
            item.networkInput = detector.prepare(photo)
            prepareSeconds = Double(DispatchTime.now().uptimeNanoseconds - prepared) / 1e9
            if targets != nil {
                if batch == 1 { item.photo = photo } else { item.encoded = bytes }
            }
        } catch {
            item.error = error
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 - prepareSeconds
        item.result = ImageResult(path: input.display, width: width, height: height,
                                  detections: [], decodeSeconds: seconds, inferenceSeconds: prepareSeconds)
        return item
    }

    /// Detections of the ready items among `items`, in one forward pass (the others pass through).
    func infer(_ items: [PipelineItem]) -> [PipelineItem] {
        var items = items
        let ready = items.indices.filter { items[$0].networkInput != nil }
        guard !ready.isEmpty, !isStopped else { return items }
        let start = DispatchTime.now().uptimeNanoseconds
        do {
            let found = try detector.detect(prepared: ready.map { items[$0].networkInput! },
                                            imageSizes: ready.map { (items[$0].result!.width, items[$0].result!.height) })
            for (index, detections) in zip(ready, found) { items[index].result?.detections = filter.apply(detections) }
        } catch {
            for index in ready { items[index].error = error }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 / Double(ready.count)
        for index in ready {
            items[index].result?.inferenceSeconds += seconds
            items[index].networkInput = nil
        }
        return items
    }

    /// Output stage: the format's record, the annotated image, counting and progress.
    func finish(_ item: consuming PipelineItem) {
        if isStopped { return }
        if item.skipped {
            skipped += 1
            progress.update(done: succeeded + failed + skipped)
            return
        }
        var error = item.error
        if error == nil, let input = item.input, let result = item.result {
            do {
                progress.erase(forStandardOutput: true)
                // The annotated image first: an image that fails there has no record in the output.
                if let targets { try annotate(result, of: input, item: &item, to: targets) }
                try writer.write(result)
            } catch let output as OutputError {
                return stop(output)
            } catch let failure {
                error = failure
            }
        }
        if let error {
            if item.problemPath != nil { problems += 1 } else { failed += 1 }
            let path = item.input?.display ?? item.problemPath ?? ""
            let message = String(describing: error)
            progress.erase()
            warn(escapedForTerminal(message.hasPrefix(path) ? message : "\(path): \(message)"))
        } else {
            succeeded += 1
        }
        progress.update(done: succeeded + failed + skipped)
    }

    /// Draws the detections on the photo (decoded again from its bytes when it did not travel
    /// with the item) and writes it, PNG or JPEG by the target's extension.
    private func annotate(_ result: ImageResult, of input: InputImage, item: inout PipelineItem, to targets: AnnotationTargets) throws {
        let target = try targets.claim(for: input)
        // The item gives its photo up, so drawing on it does not copy it.
        guard var photo = try item.photo.take() ?? item.encoded.take().map({ try Image(decoding: $0, name: input.display) })
        else { return }
        Annotator.draw(result.detections, on: &photo, names: names, classes: detector.classCount)
        let bytes = target.pathExtension == "png" ? try photo.pngData(name: target.display)
            : try photo.jpegData(quality: 90, name: target.display)
        try AtomicFile.write(bytes, to: target)
    }
}

/// A non-Sendable value handed to one other thread, which alone uses it from then on.
final class UncheckedBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
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
