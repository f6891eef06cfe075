import CommandSupport
import Darknet
import Foundation
import Imaging
import YOLO

/// One input on its way through `detect`'s pipeline.
struct PipelineItem: @unchecked Sendable {
    var input: InputImage?
    /// The network inputs (`Detector.prepare`): all the forward pass needs of the photo; one
    /// per tile with `--tiles`, none until decoded (or when decoding failed).
    var networkInputs: [Image] = []
    /// The tiles the inputs were cut from (`--tiles`), nil when the photo is one input.
    var tiles: [TileRect]?
    /// The decoded image the tiles are cut from, each when its batch runs (`PipelineInputs`).
    var tileSource: Image?
    /// The file is a PNG (crops keep the input's format).
    var png = false
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
    /// `--format` on stdout, then each results file (`--json FILE`…).
    var writers: [ResultWriter]
    let targets: AnnotationTargets?
    let skipExisting: Bool
    let names: [String]
    let batch: Int
    /// `--save-labels`, `--crops`, `--tiles`.
    let labels: OutputFolder?
    let crops: OutputFolder?
    let tiling: TilesOption?
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

    init(detector: Detector, filter: DetectionFilter, writers: [ResultWriter], names: [String], batch: Int = 1,
         progress: Progress, targets: AnnotationTargets?, skipExisting: Bool,
         labels: OutputFolder? = nil, crops: OutputFolder? = nil, tiling: TilesOption? = nil) {
        self.detector = detector
        self.labels = labels
        self.crops = crops
        self.tiling = tiling
        self.batch = batch
        self.filter = filter
        self.writers = writers
        self.names = names
        self.progress = progress
        self.targets = targets
        self.skipExisting = skipExisting
    }

    var isStopped: Bool { stopLock.withLock { stopped } }

    func run(_ source: AnyIterator<InputEvent>, pipelined: Bool) {
        do { for index in writers.indices { try writers[index].begin() } } catch { return stop(error) }
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
            var waiting: [PipelineItem] = [], ready = 0
            while let item = decoded.pop() {
                // Skipped and failed items pass at once unless a batch before them waits (order is kept).
                if waiting.isEmpty && !item.isReady { inferred.push(item); continue }
                if item.isReady { ready += 1 }
                waiting.append(item)
                if ready == batch {
                    for item in infer(waiting) { inferred.push(item) }
                    waiting.removeAll(keepingCapacity: true)
                    ready = 0
                }
            }
            for item in infer(waiting) { inferred.push(item) }
            inferred.close()
            decoder.join()
            output.join()
        } else {
            var waiting: [PipelineItem] = [], ready = 0
            while !isStopped, let event = source.next() {
                let item = decode(event)
                if waiting.isEmpty && !item.isReady { finish(item); continue }
                if item.isReady { ready += 1 }
                waiting.append(item)
                if ready == batch {
                    for item in infer(waiting) { finish(item) }
                    waiting.removeAll(keepingCapacity: true)
                    ready = 0
                }
            }
            for item in infer(waiting) { finish(item) }
        }
        // A stopped run still closes its files: the results computed are kept.
        for index in writers.indices {
            if isStopped { writers[index].abandon() } else {
                do { try writers[index].end() } catch { stop(error) }
            }
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
    /// annotated image exists). The network's image is decoded with `[net] channels` (as
    /// AlexeyAB's darknet loads it); a photo kept to draw on or crop from is the RGB decode.
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
            let channels = detector.model.net.channels
            let image = try Image(decoding: bytes, name: input.display, channels: channels)
            (width, height) = (image.width, image.height)
            item.png = bytes.first == 0x89
            let prepared = DispatchTime.now().uptimeNanoseconds
            let net = detector.model.net
            if let tiles = tiling?.tiles(imageWidth: width, imageHeight: height, networkWidth: net.width, networkHeight: net.height) {
                item.tiles = tiles
                item.tileSource = image
            } else {
                item.networkInputs = [detector.prepare(image)]
            }
            prepareSeconds = Double(DispatchTime.now().uptimeNanoseconds - prepared) / 1e9
            if targets != nil || crops != nil {
                if batch > 1 { item.encoded = bytes }
                else { item.photo = channels == 3 ? image : try Image(decoding: bytes, name: input.display) }
            }
        } catch {
            item.error = error
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 - prepareSeconds
        item.result = ImageResult(path: input.display, width: width, height: height,
                                  detections: [], decodeSeconds: seconds, inferenceSeconds: prepareSeconds)
        return item
    }

    /// Detections of the ready items among `items`, in forward passes of up to `batch` network
    /// inputs (one per image, or one per tile), the others passing through. A tiled image's
    /// detections are mapped back and merged (`TileMerge`).
    func infer(_ items: [PipelineItem]) -> [PipelineItem] {
        var items = items
        let ready = items.indices.filter { items[$0].isReady }
        guard !ready.isEmpty, !isStopped else { return items }
        let start = DispatchTime.now().uptimeNanoseconds
        do {
            let jobs = ready.flatMap { item in (0..<items[item].inputCount).map { (item: item, input: $0) } }
            var found: [[Detection]] = []
            for first in stride(from: 0, to: jobs.count, by: batch) {
                let part = jobs[first..<min(jobs.count, first + batch)]
                let sizes = part.map { job -> (width: Int, height: Int) in
                    let tile = items[job.item].tiles?[job.input]
                    return tile.map { ($0.width, $0.height) } ?? (items[job.item].result!.width, items[job.item].result!.height)
                }
                found += try detector.detect(prepared: part.map { items[$0.item].networkInput($0.input, detector: detector) }, imageSizes: sizes)
            }
            var next = 0
            for index in ready {
                let count = items[index].inputCount
                let detections = found[next..<(next + count)]
                next += count
                let kept = filter.apply(merged(Array(detections), of: items[index]))
                items[index].result?.detections = kept
            }
        } catch {
            for index in ready { items[index].error = error }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 / Double(ready.count)
        for index in ready {
            items[index].result?.inferenceSeconds += seconds
            items[index].networkInputs = []
            items[index].tileSource = nil
        }
        return items
    }

    /// One image's detections: its input's, or its tiles' merged by `TileMerge` with the
    /// detector's NMS threshold and mode, comparing boxes as the cfg's `nms_kind` does.
    private func merged(_ found: [[Detection]], of item: PipelineItem) -> [Detection] {
        guard let tiles = item.tiles, let result = item.result else { return found.first ?? [] }
        let options = detector.options
        let overlap: (BoundingBox, BoundingBox) -> Float
        switch (options.nmsMode, detector.nms.kind.mode) {
        case (.perClass, .greedyDIoU): overlap = { $0.distanceIoU($1, exponent: 0.6) }
        case (.perClass, .diou(let beta)): overlap = { $0.distanceIoU($1, beta: beta) }
        default: overlap = { $0.iou($1) }
        }
        return TileMerge.merge(found, tiles: tiles, imageWidth: result.width, imageHeight: result.height,
                               nmsThreshold: options.nmsMode == .none ? 0 : options.nmsThreshold,
                               agnostic: options.nmsMode == .agnostic, overlap: overlap)
    }

    /// Output stage: the files, the formats' records, counting and progress. An image whose
    /// files fail (an annotated image that exists, a full disk) is a failure, but its
    /// detections were computed: its records are written all the same.
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
                try writeFiles(result, of: input, item: &item)
            } catch let failure {
                error = failure
            }
            do {
                progress.erase(forStandardOutput: true)
                for index in writers.indices { try writers[index].write(result) }
            } catch let output as OutputError {
                return stop(output)
            } catch let failure {
                error = error ?? failure
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
        if ids.isEmpty { throw CLIError.usage("--classes \"\(list)\" names no class (it would keep no detection)") }
        return ids
    }
}
