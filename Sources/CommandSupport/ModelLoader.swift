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
                                     convolutionAlgorithm: options.convolutionAlgorithm, gemm: options.gemm)
    }

    /// The loader of a command that takes the model files, `--size`, `--strict`, `--threads`,
    /// `--conv-algorithm`, `--gemm` and `--precision` (`detect`, `map`, `valid`).
    package init(_ files: ModelArguments, size: Int?, strict: Bool, engine: EngineOptions) {
        self.init(cfg: files.cfg, weights: files.weights,
                  options: ModelOptions(size: size, strict: strict, threads: engine.threads,
                                        convolutionAlgorithm: engine.convolutionAlgorithm, gemm: engine.gemm,
                                        calibration: engine.calibration))
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

    /// A detector for `detect`, `stream`, `map` and `valid`: a cfg without a `[yolo]` or
    /// `[region]` layer is refused before its weights are read. `selection` gives the
    /// thresholds (without one, the cfg's darknet's default: `ModelDescription.defaultThreshold`),
    /// NMS and input mapping; the input size and execution (with the precision) are the loader's.
    package func detector(_ selection: DetectorSelection) throws -> Detector {
        let model = try detectorModel()
        var detection = selection.resolved(for: model)
        detection.width = options.size
        detection.height = options.size
        let ready = try prepared(model)
        detection.execution = ready.options
        return try ModelFiles.namingMemory(of: model, cfg: cfg) { try Detector(ready, options: detection) }
    }

    /// The cfg of a detector (`detect`, `stream`, `map`, `valid`, `calibrate`): one without a
    /// `[yolo]` or `[region]` layer, or whose images the engine cannot read, is refused.
    package func detectorModel() throws -> ModelDescription {
        let model = try model()
        if !ModelFiles.isDetector(model) { throw ModelFiles.Error.notADetector(RawPath(argument: cfg).display) }
        try ModelFiles.checkChannels(model, cfg: cfg)
        return model
    }

    /// A classifier for `classify`: a detector's cfg is refused before its weights are read;
    /// `labels` (one name a line) is read as `readClassNames` reads names. Without `labels`, a
    /// `.data` file's `names=`, else its `labels=`, as AlexeyAB's `classifier predict` reads
    /// it (classifier.c); its `classes=` must be the network's outputs (his error too).
    package func classifier(labels: String?, data: DataFile? = nil) throws -> Classifier {
        let model = try model()
        if ModelFiles.isDetector(model) { throw ModelFiles.Error.notAClassifier(RawPath(argument: cfg).display) }
        try ModelFiles.checkChannels(model, cfg: cfg)
        let outputs = model.layers.last?.output.count ?? 0
        if let data, let declared = data.classes, declared != outputs, let entry = data.entry("classes") {
            throw ClassNamesError.classesKey(data.location(entry), value: declared, classes: outputs)
        }
        let file = try labels ?? data.map { data throws in
            try data.existingPath(data.entry("names") == nil && data.entry("labels") != nil ? "labels" : "names", for: "the class labels")
        }
        let names = try file.map { try readClassNames($0, classes: outputs) }
        let ready = try prepared(model)
        return try ModelFiles.namingMemory(of: model, cfg: cfg) { try Classifier(ready, labels: names) }
    }

    /// A detector's `classes` names: the file `names`, else the `.data` file's `names=`, else
    /// coco.names beside the weights or the cfg (`loadClassNames`, which checks `data`'s
    /// `classes=` and the names' count under `rule`).
    package func classNames(_ names: String?, data: DataFile? = nil, classes: Int, rule: NamesCountRule = .warn) throws -> [String] {
        try loadClassNames(names, data: data, beside: [weights, cfg].compactMap { $0 }, classes: classes, rule: rule)
    }
}
