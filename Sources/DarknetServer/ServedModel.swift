import CommandSupport
import Darknet
import Foundation

/// One model the server answers for: its engine (a detector or a classifier, loaded by
/// `ModelLoader` as `detect` and `classify` load them), its class names, its input and output
/// tensors (the Open Inference Protocol's metadata), and its `InferenceQueue`.
package final class ServedModel: Sendable {
    package enum Engine: @unchecked Sendable {
        case detector(Detector)
        case classifier(Classifier)
    }

    /// A named tensor: `[net]`'s input or a layer's output, one image's `C×H×W`.
    package struct Tensor: Sendable {
        package var name: String
        package var shape: [Int]
    }

    package let name: String
    package let engine: Engine
    /// Class names (a detector's) or labels (a classifier's), one per class.
    package let names: [String]
    /// `detect`'s thresholds when a request gives none: the cfg's darknet's (`DetectorSelection`).
    package let selection: DetectorSelection
    package let input: Tensor
    /// The layers `forward` returns: every detection head, else the last layer.
    package let outputs: [Tensor]
    package let queue: InferenceQueue

    /// The name of the input tensor of every model.
    package static let inputName = "images"
    /// The name of the decoded-boxes output of a detector (`InferTensors.detections`).
    package static let detectionsName = "detections"

    /// Loads `spec` with `options` (`--size`, `--threads`…) and starts its queue.
    package init(_ spec: ModelSpec, options: ModelOptions, queue settings: QueueSettings, metrics: ServerMetrics) throws {
        let loader = ModelLoader(cfg: spec.cfg, weights: spec.weights, options: options)
        let model = try loader.model()
        let data = try spec.names.flatMap { path -> DataFile? in
            guard path.hasSuffix(".data") else { return nil }
            let file = try DataFile(contentsOf: path)
            for warning in file.warnings { warn("\(spec.name): \(warning)") }
            return file
        }
        let namesFile = data == nil ? spec.names : nil
        selection = DetectorSelection(options: DetectorOptions(), threshold: nil)
        let engine: Engine
        if ModelFiles.isDetector(model) {
            let detector = try loader.detector(selection)
            names = try loader.classNames(namesFile, data: data, classes: detector.classCount)
            engine = .detector(detector)
        } else {
            let classifier = try loader.classifier(labels: namesFile, data: data)
            names = classifier.labels
            engine = .classifier(classifier)
        }
        self.engine = engine
        self.name = spec.name
        let loaded = Self.model(of: engine)
        let net = loaded.net
        input = Tensor(name: Self.inputName, shape: [net.channels, net.height, net.width])
        outputs = Network.outputLayers(of: loaded).map { index in
            let shape = loaded.layers[index].output
            return Tensor(name: Network.layerName(index, in: loaded), shape: [shape.channels, shape.height, shape.width])
        }
        // No trim when the queue empties: the detector's pool keeps at most
        // `DetectorOptions.maximumIdleNetworks` networks (the largest batch dropped first), which
        // bounds the memory between bursts, and a steady client keeps reusing its network.
        queue = InferenceQueue(name: spec.name, model: engine, capacity: settings.capacity, maxBatch: settings.maxBatch,
                               windowMilliseconds: settings.windowMilliseconds, passDelayMilliseconds: settings.passDelayMilliseconds,
                               metrics: metrics)
    }

    private static func model(of engine: Engine) -> ModelDescription {
        switch engine {
        case .detector(let detector): detector.model
        case .classifier(let classifier): classifier.model
        }
    }

    package var model: ModelDescription { Self.model(of: engine) }

    package var isDetector: Bool {
        if case .detector = engine { return true }
        return false
    }

    /// "detector" or "classifier", as the metadata and the page say it.
    package var kind: String { isDetector ? "detector" : "classifier" }
}

/// The batching settings every model's queue gets (`--queue`, `--max-batch`, `--batch-window-ms`).
package struct QueueSettings: Sendable {
    package var capacity: Int
    package var maxBatch: Int
    package var windowMilliseconds: Double
    /// Milliseconds slept before each forward pass (0 in use): the tests of queueing, deadlines
    /// and draining make requests wait this long whatever the CPU and build (`serve`'s hidden
    /// `--test-pass-delay-ms`).
    package var passDelayMilliseconds: Int

    package init(capacity: Int, maxBatch: Int, windowMilliseconds: Double, passDelayMilliseconds: Int = 0) {
        self.capacity = capacity
        self.maxBatch = maxBatch
        self.windowMilliseconds = windowMilliseconds
        self.passDelayMilliseconds = passDelayMilliseconds
    }
}
