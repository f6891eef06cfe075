import Darknet

/// How every command turns its model files and `ModelOptions` into the engine's values, with
/// the checks the engine leaves to its caller (`ModelFiles`): the cfg read at `options.size`
/// (a missing file worded as every other, a pipe read by streaming, the cfg and weights
/// swapped), its warnings printed or, with `options.strict`, the first one an error; a model
/// of the wrong kind for the command refused before its weights are read; the weights
/// prepared with `execution`.
package struct ModelLoader {
    package let cfg: String
    /// The weights file; nil for a command that reads the cfg only or makes synthetic weights.
    package let weights: String?
    package let options: ModelOptions
    /// `options`' workers, capped once, here, by `ThreadLimit` (which warns), and convolution
    /// methods; f32 (`executionOptions()` adds the calibration of `--precision int8`).
    package let execution: ExecutionOptions

    package init(cfg: String, weights: String?, options: ModelOptions) {
        self.cfg = cfg
        self.weights = weights
        self.options = options
        execution = ExecutionOptions(threads: options.threads.map(ThreadLimit.capped),
                                     convolutionAlgorithm: options.convolutionAlgorithm)
    }

    /// The parsed cfg with its warnings reported; `weights` is read only to name swapped files.
    package func model() throws -> ModelDescription {
        let model = try ModelFiles.model(cfg: cfg, weights: weights, width: options.size, height: options.size)
        try report(model.warnings, strict: options.strict)
        return model
    }

    /// `execution` with the precision `options` asks for: int8 on the calibration file read
    /// here (`Calibration(contentsOf:)`: its errors name the file and field), else f32.
    package func executionOptions() throws -> ExecutionOptions {
        guard let calibration = options.calibration else { return execution }
        var int8 = execution
        int8.precision = .int8(try Calibration(contentsOf: calibration))
        return int8
    }

    /// `model` with its parameters from `weights`, prepared with `executionOptions()` for `batch`
    /// images. A loader made without a weights file has none to prepare: calling this is a
    /// programming error.
    package func prepared(_ model: ModelDescription, batch: Int = 1) throws -> PreparedModel {
        guard let weights else { preconditionFailure("ModelLoader.prepared needs a weights file") }
        return try ModelFiles.prepared(weights, for: model, options: executionOptions(), batch: batch)
    }

    /// A detector for `detect` and `stream`: a cfg without a `[yolo]` or `[region]` layer is
    /// refused before its weights are read. `selection` gives the thresholds, NMS and input
    /// mapping; the input size and execution are the loader's.
    package func detector(_ selection: DetectorOptions) throws -> Detector {
        let model = try detectorModel()
        var detection = selection
        detection.width = options.size
        detection.height = options.size
        let prepared = try prepared(model)
        detection.execution = prepared.options
        return try Detector(prepared, options: detection)
    }

    /// The cfg of a detector (`detect`, `stream`, `calibrate`): one without a `[yolo]` or
    /// `[region]` layer, or whose images the engine cannot read, is refused.
    package func detectorModel() throws -> ModelDescription {
        let model = try model()
        if !ModelFiles.isDetector(model) { throw ModelFiles.Error.notADetector(RawPath(argument: cfg).display) }
        try ModelFiles.checkChannels(model, cfg: cfg)
        return model
    }

    /// A classifier for `classify`: a detector's cfg is refused before its weights are read;
    /// `labels` (one name a line) is read as `readClassNames` reads names.
    package func classifier(labels: String?) throws -> Classifier {
        let model = try model()
        if ModelFiles.isDetector(model) { throw ModelFiles.Error.notAClassifier(RawPath(argument: cfg).display) }
        try ModelFiles.checkChannels(model, cfg: cfg)
        let names = try labels.map { try readClassNames($0, classes: model.layers.last?.output.count ?? 0) }
        return try Classifier(prepared(model), labels: names)
    }

    /// A detector's `classes` names: the file `names`, else coco.names beside the weights or
    /// the cfg (`loadClassNames`).
    package func classNames(_ names: String?, classes: Int) throws -> [String] {
        try loadClassNames(names, beside: [weights, cfg].compactMap { $0 }, classes: classes)
    }
}
