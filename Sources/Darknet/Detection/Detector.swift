import Foundation
import Imaging
import YOLO

/// cfg + weights → boxes on an image, as `darknet detect` computes them: letterbox to the
/// network size, forward, decode every `[yolo]` layer (`get_network_boxes`), undo the
/// letterbox (`correct_yolo_boxes`), NMS (`do_nms_sort`, 0.45), keep each (box, class) whose
/// probability exceeds the threshold (`draw_detections`).
///
/// Thread-safe: one detector may be shared by many threads. The weights are loaded once
/// and shared; each concurrent `detect` call borrows its own activation buffers (a
/// ``Network``) from a small pool, so calls run in parallel and give the same answers as
/// serial calls. Its options (threads, convolution methods) are its own: detectors made with
/// different options run side by side, each as it would alone.
///
/// Batches: `detect(in: [Image])` runs several images through one forward pass (a
/// ``Network`` of that batch size, pooled like the others); each image gets the detections it
/// gets alone.
public final class Detector: @unchecked Sendable {
    /// The model and its parameters, prepared under `options.execution`, shared (read-only) by
    /// every pooled network.
    public let prepared: PreparedModel
    public let options: DetectorOptions
    private let lock = NSLock()
    /// Idle networks by batch size.
    private var idle: [Int: [Network]]

    /// The parsed cfg with every layer's shapes.
    public var model: ModelDescription { prepared.model }

    /// A detector on a prepared model (its options must be `options.execution`'s).
    public init(_ prepared: PreparedModel, options: DetectorOptions = .init()) throws {
        self.prepared = prepared
        self.options = options
        self.idle = [1: [try Network(prepared)]]
    }

    /// Prepares `weights` (consumed) under `options.execution`.
    public convenience init(model: ModelDescription, weights: consuming ModelWeights, options: DetectorOptions = .init()) throws {
        try self.init(PreparedModel(model: model, weights: weights, options: options.execution), options: options)
    }

    /// Loads a cfg and its weights; `options.width`/`height` override `[net]`'s input size.
    public convenience init(cfg: String, weights: String, options: DetectorOptions = .init(),
                            limits: ModelLimits = .init()) throws {
        let model = try ModelDescription(contentsOf: cfg, width: options.width ?? options.height,
                                         height: options.height ?? options.width, limits: limits)
        try self.init(PreparedModel(model: model, weightsFile: weights, options: options.execution), options: options)
    }

    /// Loads a cfg and its weights from memory (a model bundled as resources or downloaded):
    /// `cfg` is the cfg's text, `weights` the weights file's bytes; `name` names both in errors.
    public convenience init(cfg: String, weights: UnsafeRawBufferPointer, name: String = "<memory>",
                            options: DetectorOptions = .init(), limits: ModelLimits = .init()) throws {
        let model = try ModelDescription(text: cfg, file: name + ".cfg", width: options.width ?? options.height,
                                         height: options.height ?? options.width, limits: limits)
        try self.init(PreparedModel(model: model, weightsBytes: weights, file: name + ".weights", options: options.execution),
                      options: options)
    }

    public convenience init(cfg: URL, weights: URL, options: DetectorOptions = .init()) throws {
        try self.init(cfg: cfg.path, weights: weights.path, options: options)
    }

    /// Classes of the first `[yolo]` or `[region]` layer (what a names file must cover); 0 without one.
    public var classCount: Int {
        for layer in model.layers {
            if case .yolo(let yolo) = layer.kind { return yolo.head.classes }
            if case .region(let region) = layer.kind { return region.head.classes }
        }
        return 0
    }

    /// Detections in `image` (its pixel coordinates via `Detection.pixelBox`).
    public func detect(in image: Image) throws -> [Detection] {
        let candidates = try self.candidates(in: image)
        return detections(from: candidates, threshold: options.threshold)
    }

    /// Detections in each of `images` (1...`Network.maximumBatch`), computed in one forward
    /// pass of the whole batch; the same as calling `detect(in:)` on each.
    public func detect(in images: [Image]) throws -> [[Detection]] {
        try candidates(in: images).map { detections(from: $0, threshold: options.threshold) }
    }

    /// darknet's `detection` list after NMS: boxes with every class probability.
    public func candidates(in image: Image) throws -> [Candidate] {
        let input = prepare(image)
        let outputs = try withNetwork(batch: 1) { try $0.forward(input.data) }
        return try candidates(from: outputs, width: image.width, height: image.height)
    }

    /// `candidates(in:)` of each image, from one forward pass of the batch.
    public func candidates(in images: [Image]) throws -> [[Candidate]] {
        guard !images.isEmpty else { return [] }
        let inputs = images.map { prepare($0).data }
        let outputs = try withNetwork(batch: images.count) { try $0.forward(batch: inputs) }
        return try zip(outputs, images).map { try candidates(from: $0, width: $1.width, height: $1.height) }
    }

    /// `detect(in: [Image])` from the inputs `prepare(_:)` made of the images, each with its
    /// image's size: a caller can let each photo go once prepared, so a batch holds network
    /// inputs rather than photos. The same detections as `detect(in:)` on the photos.
    public func detect(prepared inputs: [Image], imageSizes: [(width: Int, height: Int)]) throws -> [[Detection]] {
        guard !inputs.isEmpty else { return [] }
        let outputs = try withNetwork(batch: inputs.count) { try $0.forward(batch: inputs.map(\.data)) }
        return try zip(outputs, imageSizes).map {
            detections(from: try candidates(from: $0, width: $1.width, height: $1.height), threshold: options.threshold)
        }
    }

    /// Decoding, box correction and NMS of the outputs of one image of `width` × `height`.
    private func candidates(from outputs: [Network.LayerOutput], width: Int, height: Int) throws -> [Candidate] {
        var candidates = try decode(outputs)
        correctBoxes(&candidates, imageWidth: width, imageHeight: height,
                     networkWidth: model.net.width, networkHeight: model.net.height,
                     mapping: options.mapping)
        switch options.nmsMode {
        case .perClass:
            if case .diou(let beta) = cfgNMS { return NMS.diou(candidates, iouThreshold: options.nmsThreshold, beta: beta) }
            return NMS.perClass(candidates, iouThreshold: options.nmsThreshold)
        case .agnostic: return NMS.classAgnostic(candidates, iouThreshold: options.nmsThreshold)
        case .none: return candidates
        }
    }

    /// The NMS the cfg asks for: the last `[yolo]`'s `nms_kind` (AlexeyAB's detector reads the
    /// last layer's), used by the `.perClass` mode; `.perClass` when it says default/greedynms.
    public var cfgNMS: NMS.Mode {
        for layer in model.layers.reversed() { if case .yolo(let yolo) = layer.kind { return yolo.nms } }
        return .perClass
    }

    /// The network input for `image`: letterboxed or stretched to `[net]`'s size, CHW in [0, 1].
    /// An image whose channel count is not `[net] channels` is converted as AlexeyAB's darknet
    /// loads it (`Image.converted(toChannels:)`: stb_image's grey `(77r+150g+29b)>>8`, opaque
    /// alpha). For a JPEG, decoding with `Image(contentsOf:channels:)` gives its Y plane itself.
    public func prepare(_ image: Image) -> Image {
        let net = model.net
        let rgb = image.converted(toChannels: net.channels)
        switch options.mapping {
        case .letterbox: return rgb.letterboxed(width: net.width, height: net.height)
        case .stretch: return rgb.resized(width: net.width, height: net.height)
        }
    }

    /// Runs `body` with a network of `batch` images no other thread is using, then returns it
    /// to the pool.
    private func withNetwork<T>(batch: Int, _ body: (Network) throws -> T) throws -> T {
        lock.lock()
        let pooled = idle[batch]?.popLast()
        lock.unlock()
        let network = try pooled ?? Network(prepared, batch: batch)
        defer {
            lock.lock()
            idle[batch, default: []].append(network)
            lock.unlock()
        }
        return try body(network)
    }

    /// Candidates of every `[yolo]` output, in layer order (darknet's `fill_network_boxes`), or
    /// of the `[region]` output (get_region_detections: anchors outermost, then cells).
    func decode(_ outputs: [Network.LayerOutput]) throws -> [Candidate] {
        var candidates: [Candidate] = []
        for output in outputs {
            switch model.layers[output.layer].kind {
            case .yolo(let yolo):
                try output.values.withUnsafeBufferPointer { values in
                    candidates += try YOLODecoder.decode(values, gridWidth: output.shape.width, gridHeight: output.shape.height,
                                                         head: yolo.head, networkWidth: model.net.width,
                                                         networkHeight: model.net.height, threshold: options.threshold)
                }
            case .region(let region):
                let tensor = TensorDescriptor.nchw(channels: output.shape.channels, height: output.shape.height,
                                                   width: output.shape.width)
                try output.values.withUnsafeBufferPointer { values in
                    candidates += try YOLODecoder.decode(values, tensor: tensor, head: .region(region.head),
                                                         networkWidth: model.net.width, networkHeight: model.net.height,
                                                         threshold: options.threshold)
                }
            default:
                continue
            }
        }
        return candidates
    }
}
