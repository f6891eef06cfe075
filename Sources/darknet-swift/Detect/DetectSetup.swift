import CommandSupport
import Darknet
import Foundation
import YOLO

/// What `detector test` adds to `detect` (`DarknetDetector`): AlexeyAB's `test_detector`
/// writes the annotated image of a single image to `predictions.jpg` in the current folder,
/// replacing the one the last run left (his fixed name; a user of his darknet opens it after
/// every run), and without an image argument reads image paths from stdin, prompting
/// "Enter Image Path: " when stdin is a terminal.
struct DarknetTest {
    static let predictions = "predictions.jpg"
    static let prompt = "Enter Image Path: "

    var prompt: Bool
}

extension Detect {
    /// `detect`, or `detector test` with `darknet`'s additions.
    func run(darknet: DarknetTest?) throws {
        let loader = ModelLoader(files, size: size.size, strict: strict.strict, engine: engine)
        let dataFile = try data.read()
        let selection = detection.detectorOptions
        let detector = try loader.detector(selection)
        let classNames = try loader.classNames(detection.names, data: dataFile, classes: detector.classCount)
        let filter = try detection.filter(names: classNames)
        let threshold = selection.thresholdChoice(detector.model)
        if (format == .coco || resultFiles.coco != nil) && threshold.value > COCOReport.thresholdWarning {
            warn("warning: COCO results at threshold \(threshold.value) (\(threshold.reason)) leave out the boxes COCO's mAP ranks: "
                 + "darknet's detector valid writes them above 0.001 (add --thresh 0.001, or run darknet-swift map)")
        }
        let context = ResultContext(names: classNames, classCount: detector.classCount, imageIds: try COCOImageIds(file: imageIds.imageIds),
                                    choices: JSONReport.choices(detector, threshold: threshold))
        let source = try inputs.source(prompt: darknet?.prompt == true ? DarknetTest.prompt : nil)
        // The list streams (a run starts at its first line and holds none of it) unless the
        // run needs every input first: --shard's sorted split, --output FILE's one image,
        // and --force with annotations (every input must be known not to be a target).
        let outputIsFile = output.map { !$0.hasSuffix("/") && !RawPath(argument: $0).isDirectory } ?? false
        var known: [InputImage]?
        var events: [InputEvent] = []
        let writesFiles = output != nil || outputDir != nil || saveLabels != nil || saveLabelsBesideImages || crops != nil
        if inputs.list == nil || shard != nil || outputIsFile || (force && writesFiles) {
            var (found, problems) = source.all()
            if let shard, let parsed = Shard(shard) { found = parsed.select(found) }
            known = found
            events = problems + found.map { .image($0) }
        }
        let folders = inputs.paths.filter { !$0.isStandardInput && $0.isDirectory }.map(\.standardized)
        let targets: AnnotationTargets?
        if let output {
            targets = try AnnotationTargets(output: output, single: known.map { $0.count == 1 }, inputs: known ?? [], force: force)
        } else if let outputDir {
            targets = try AnnotationTargets(outputDirectory: outputDir, folders: folders, inputs: known ?? [], force: force)
        } else if darknet != nil, let known, known.count == 1, inputs.list == nil {
            targets = try AnnotationTargets(output: DarknetTest.predictions, single: true, inputs: known, force: true)
        } else {
            targets = nil
        }
        let labels = try saveLabels.map {
            try OutputFolder($0, inputs: known ?? [], folders: folders, refusesInputFolder: false, force: force, resuming: skipExisting)
        } ?? (saveLabelsBesideImages ? OutputFolder(besideImages: known ?? [], force: force, resuming: skipExisting) : nil)
        let cropFolder = try crops.map {
            try OutputFolder($0, inputs: known ?? [], folders: folders, refusesInputFolder: true, force: force, resuming: skipExisting)
        }
        let writers = [ResultWriter(format: format, context: context)]
            + (try resultFiles.writers(context: context, force: force, inputs: (known ?? []).map(\.path)))
        let run = DetectRun(detector: detector, filter: filter, writers: writers, names: classNames, batch: batch.batch,
                            progress: Progress(total: known?.count, quiet: quiet || darknet?.prompt == true), targets: targets,
                            skipExisting: skipExisting, labels: labels, crops: cropFolder, tiling: tiles.flatMap(TilesOption.init))
        // Photos in flight would push a memory-bound model past twice its parameters; a
        // prompt must follow the answer to the path before it.
        let pipelined = !noPipeline && darknet?.prompt != true
            && !(engine.convolutionAlgorithm == .auto && detector.model.autoIsMemoryBound(batch: batch.batch))
        run.run(known != nil ? AnyIterator(events.makeIterator()) : AnyIterator(source), pipelined: pipelined)
        if let error = run.outputError { throw error }
        let count = run.succeeded + run.failed + run.skipped
        if !quiet && (run.failed > 0 || run.skipped > 0 || source.skipped > 0 || count > 1) {
            warn("\(count) image\(count == 1 ? "" : "s"): \(run.succeeded) done, \(run.failed) failed"
                 + (run.skipped > 0 ? ", \(run.skipped) skipped (output exists)" : "")
                 + (source.skipped > 0 ? ", \(source.skipped) non-image files skipped" : "")
                 + "; threshold \(threshold)")
        }
        if run.failed > 0 || run.problems > 0 { throw Status.inputsFailed }
    }
}
