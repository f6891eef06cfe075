import Imaging
import YOLO

/// One forward pass, several answers: a caller that batches images of different requests (a
/// server's dynamic batching) runs the batch once and decodes each image with that request's
/// own thresholds and NMS. Each answer is the one `detect(in:)` gives for that image on a
/// detector made with those options: the network's outputs do not depend on them.
extension Detector {
    /// The outputs (`Network.forward(batch:)`: every `[yolo]`/`[region]` head, `C×H×W` each) of
    /// each of `inputs` (network inputs, `prepare(_:)`'s or a caller's own `C×H×W` tensors of
    /// `[net]`'s size), from one forward pass of the batch (1...`Network.maximumBatch`).
    public func forward(prepared inputs: [[Float]]) throws -> [[Network.LayerOutput]] {
        guard !inputs.isEmpty else { return [] }
        return try withNetwork(batch: inputs.count) { try $0.forward(batch: inputs) }
    }

    /// The detections in one image's `outputs` (from `forward(prepared:)`) of an image of
    /// `width` × `height`, with the thresholds and NMS of `options` (the detector's when
    /// nil; its size, mapping and execution are not read): what `detect(in:)` gives on a detector made with those options.
    public func decodeDetections(_ outputs: [Network.LayerOutput], width: Int, height: Int,
                                 options: DetectorOptions? = nil) throws -> [Detection] {
        let chosen = options ?? self.options
        return YOLO.detections(from: try candidates(from: outputs, width: width, height: height, options: chosen),
                               threshold: chosen.threshold)
    }
}
