import Foundation
import Imaging
import YOLO

/// cfg + weights → boxes on an image, as the darknet that trained the model computes them in
/// `detector test`: fit the image to the network size (`inputFitting`: letterbox or resize, as
/// the cfg says), forward, decode every detection head (`get_network_boxes`), map the boxes
/// back to the image (`correct_yolo_boxes`), NMS as the last head's `nms_kind` says (`nms`:
/// `do_nms_sort` or AlexeyAB's `diounms_sort`, 0.45), keep each (box, class) whose probability
/// exceeds the threshold (`draw_detections`).
///
/// Thread-safe: one detector may be shared by many threads. The weights are loaded once
/// and shared; each concurrent `detect` call borrows its own activation buffers (a
/// ``Network``) from a small pool, so calls run in parallel and give the same answers as
/// serial calls. The pool keeps at most `options.maximumIdleNetworks` networks between calls
/// (the largest batch is dropped first) and `trim()` drops them all: a burst of concurrent
/// calls or one large batch does not hold its memory afterwards. Its options (threads,
/// convolution methods) are its own: detectors made with different options run side by side,
/// each as it would alone.
///
/// Batches: `detect(in: [Image])` runs several images through one forward pass (a
/// ``Network`` of that batch size, pooled like the others); each image gets the detections it
/// gets alone.
public final class Detector: @unchecked Sendable {
    /// The model and its parameters, prepared under `options.execution`, shared (read-only) by
    /// every pooled network.
    public let prepared: PreparedModel
    public let options: DetectorOptions
    /// The networks lent to calls (`NetworkPool`'s rules).
    let pool: NetworkPool

    /// The parsed cfg with every layer's shapes.
    public var model: ModelDescription { prepared.model }

    /// A detector on a prepared model (its options must be `options.execution`'s).
    public init(_ prepared: PreparedModel, options: DetectorOptions = .init()) throws {
        self.prepared = prepared
        self.options = options
        self.pool = NetworkPool(prepared, capacity: options.maximumIdleNetworks, first: try Network(prepared))
    }

    /// Prepares `weights` (consumed) under `options.execution`.
    public convenience init(model: ModelDescription, weights: consuming ModelWeights, options: DetectorOptions = .init()) throws {
        try self.init(PreparedModel(model: model, weights: weights, options: options.execution), options: options)
    }

    /// Loads a cfg and its weights; `options.width`/`height` override `[net]`'s input size.
    /// The two files given the wrong way round, or one of them given as both, is a
    /// `ModelFileError` before either is parsed.
    public convenience init(cfg: String, weights: String, options: DetectorOptions = .init(),
                            limits: ModelLimits = .init()) throws {
        try ModelFileKind.check(cfg: cfg, weights: weights)
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

    /// Classes of the first detection head (what a names file must cover); 0 without one.
    public var classCount: Int { model.layers.lazy.compactMap(\.detectionHead).first?.classes ?? 0 }

    /// How images are fitted to the network, and why: `options.mapping` when given, else the
    /// cfg's choice (`ModelDescription.inputFitting`).
    public var inputFitting: InputFitting {
        guard let mapping = options.mapping else { return model.inputFitting }
        return InputFitting(mapping: mapping, reason: "chosen by the caller")
    }

    /// The NMS `.perClass` runs, and why: the cfg's (`ModelDescription.nmsKind`).
    public var nms: (kind: NMSKind, reason: String) { model.nmsKind }

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
    /// inputs rather than photos. The same detections as `detect(in:)` on the photos. Throws
    /// `DetectorError` when the counts differ or a size is below 1 × 1.
    public func detect(prepared inputs: [Image], imageSizes: [(width: Int, height: Int)]) throws -> [[Detection]] {
        guard inputs.count == imageSizes.count else { throw DetectorError.imageSizeCount(inputs: inputs.count, sizes: imageSizes.count) }
        if let bad = imageSizes.firstIndex(where: { $0.width < 1 || $0.height < 1 }) {
            throw DetectorError.invalidImageSize(index: bad, width: imageSizes[bad].width, height: imageSizes[bad].height)
        }
        guard !inputs.isEmpty else { return [] }
        let outputs = try withNetwork(batch: inputs.count) { try $0.forward(batch: inputs.map(\.data)) }
        return try zip(outputs, imageSizes).map {
            detections(from: try candidates(from: $0, width: $1.width, height: $1.height), threshold: options.threshold)
        }
    }

    /// Decoding, box correction and NMS of the outputs of one image of `width` × `height`.
    private func candidates(from outputs: [Network.LayerOutput], width: Int, height: Int) throws -> [Candidate] {
        let candidates = try decode(outputs, imageWidth: width, imageHeight: height)
        switch options.nmsMode {
        case .perClass:
            switch nms.kind.mode {
            case .greedyDIoU: return NMS.greedyDIoU(candidates, iouThreshold: options.nmsThreshold)
            case .diou(let beta): return NMS.diou(candidates, iouThreshold: options.nmsThreshold, beta: beta)
            case .perClass, .classAgnostic, .coreML, .byObjectness: return NMS.perClass(candidates, iouThreshold: options.nmsThreshold)
            }
        case .agnostic: return NMS.classAgnostic(candidates, iouThreshold: options.nmsThreshold)
        case .none: return candidates
        }
    }

    /// The network input for `image`: letterboxed or stretched to `[net]`'s size (`inputFitting`),
    /// CHW in [0, 1]. An image whose channel count is not `[net] channels` is converted as
    /// AlexeyAB's darknet loads it (`Image.converted(toChannels:)`: stb_image's grey
    /// `(77r+150g+29b)>>8`, opaque alpha). For a JPEG, decoding with
    /// `Image(contentsOf:channels:)` gives its Y plane itself.
    public func prepare(_ image: Image) -> Image {
        let net = model.net
        let rgb = image.converted(toChannels: net.channels)
        switch inputFitting.mapping {
        case .letterbox: return rgb.letterboxed(width: net.width, height: net.height)
        case .stretch: return rgb.resized(width: net.width, height: net.height)
        }
    }

    /// Runs `body` with a network of `batch` images no other thread is using, then returns it
    /// to the pool.
    private func withNetwork<T>(batch: Int, _ body: (Network) throws -> T) throws -> T {
        try pool.with(batch: batch, body)
    }

    /// Releases the activation buffers kept between calls (calls running keep theirs); the
    /// next call makes a network again.
    public func trim() { pool.trim() }

    /// Candidates of every head's output, in layer order (darknet's `fill_network_boxes`), each
    /// head's in its darknet's order (`DetectionHeadLayer.decode`), its boxes mapped to the
    /// image as its darknet's `correct_*_boxes` does (`correctsByReciprocalRatio`). Outputs of
    /// layers that are not heads (a classifier's last layer) give none.
    func decode(_ outputs: [Network.LayerOutput], imageWidth: Int, imageHeight: Int) throws -> [Candidate] {
        let dialect = model.dialect.dialect
        let decoding = HeadDecoding(networkWidth: model.net.width, networkHeight: model.net.height,
                                    threshold: options.threshold, dialect: dialect,
                                    hierarchyThreshold: options.hierarchyThreshold)
        var candidates: [Candidate] = []
        for output in outputs {
            guard let head = model.layers[output.layer].detectionHead else { continue }
            var decoded = try output.values.withUnsafeBufferPointer { try head.decode($0, shape: output.shape, decoding) }
            correctBoxes(&decoded, imageWidth: imageWidth, imageHeight: imageHeight, networkWidth: decoding.networkWidth,
                         networkHeight: decoding.networkHeight, mapping: inputFitting.mapping,
                         reciprocalRatio: head.correctsByReciprocalRatio(in: dialect))
            candidates += decoded
        }
        return candidates
    }
}
