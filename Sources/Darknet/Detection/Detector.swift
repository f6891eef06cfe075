import Imaging
import YOLO

/// cfg + weights → boxes on an image, as `darknet detect` computes them: letterbox to the
/// network size, forward, decode every `[yolo]` layer (`get_network_boxes`), undo the
/// letterbox (`correct_yolo_boxes`), NMS (`do_nms_sort`, 0.45), keep each (box, class) whose
/// probability exceeds the threshold (`draw_detections`).
///
/// Not thread-safe (it owns one `Network`'s buffers): use one detector per thread.
public final class Detector {
    public let network: Network
    public var options: DetectorOptions

    public init(network: Network, options: DetectorOptions = .init()) {
        self.network = network
        self.options = options
        if let threads = options.threads { GEMM.threads = threads }
    }

    public convenience init(cfg: String, weights: String, options: DetectorOptions = .init()) throws {
        let width = options.width ?? options.height
        let height = options.height ?? options.width
        try self.init(network: Network(cfg: cfg, weights: weights, width: width, height: height), options: options)
    }

    /// Detections in `image` (its pixel coordinates via `Detection.pixelBox`).
    public func detect(in image: Image) throws -> [Detection] {
        let candidates = try self.candidates(in: image)
        return detections(from: candidates, threshold: options.threshold)
    }

    /// darknet's `detection` list after NMS: boxes with every class probability.
    public func candidates(in image: Image) throws -> [Candidate] {
        let input = prepare(image)
        let outputs = try network.forward(input.data)
        var candidates = try decode(outputs)
        correctBoxes(&candidates, imageWidth: image.width, imageHeight: image.height,
                     networkWidth: network.model.net.width, networkHeight: network.model.net.height,
                     mapping: options.mapping)
        switch options.nmsMode {
        case .perClass: return NMS.perClass(candidates, iouThreshold: options.nmsThreshold)
        case .agnostic: return NMS.classAgnostic(candidates, iouThreshold: options.nmsThreshold)
        case .none: return candidates
        }
    }

    /// The network input for `image`: letterboxed or stretched to `[net]`'s size, RGB CHW in [0, 1].
    public func prepare(_ image: Image) -> Image {
        let net = network.model.net
        var rgb = image
        if rgb.channels != net.channels { rgb = rgb.withChannels(net.channels) }
        switch options.mapping {
        case .letterbox: return rgb.letterboxed(width: net.width, height: net.height)
        case .stretch: return rgb.resized(width: net.width, height: net.height)
        }
    }

    /// Candidates of every `[yolo]` output, in layer order (darknet's `fill_network_boxes`).
    func decode(_ outputs: [Network.LayerOutput]) throws -> [Candidate] {
        var candidates: [Candidate] = []
        for output in outputs {
            guard case .yolo(let yolo) = network.model.layers[output.layer].kind else { continue }
            try output.values.withUnsafeBufferPointer { values in
                candidates += try YOLODecoder.decode(values, gridWidth: output.shape.width, gridHeight: output.shape.height,
                                                     head: yolo.head, networkWidth: network.model.net.width,
                                                     networkHeight: network.model.net.height, threshold: options.threshold)
            }
        }
        return candidates
    }
}

extension Image {
    /// The image with `channels` channels: gray replicated or extra channels dropped.
    func withChannels(_ channels: Int) -> Image {
        let plane = width * height
        var data = [Float](repeating: 0, count: channels * plane)
        for c in 0..<channels {
            let source = min(c, self.channels - 1)
            for i in 0..<plane { data[c * plane + i] = self.data[source * plane + i] }
        }
        return Image(width: width, height: height, channels: channels, data: data)
    }
}
