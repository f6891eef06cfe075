import ArgumentParser
import CommandSupport
import Darknet
import Foundation
import Imaging
import YOLO

struct Detect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Detect objects in images, files and folders, as `darknet detect` does.",
        discussion: """
        Inputs are image files (- reads one from stdin), folders (their .jpg/.jpeg/.png files, \
        sorted; --recursive for sub-folders) and --list files (one path per line, - for stdin; \
        read as the run goes). An input that cannot be read or decoded is reported on stderr \
        (path: reason) and the run goes on. Exit status: 0 all inputs done, 1 some inputs \
        failed or stdout could not be written, 2 usage or model error.

        A video file, camera (/dev/video0), stream URL or image sequence (frame-%04d.png), as \
        the only input, is read by ffmpeg and detected frame by frame as `stream` does: text \
        or jsonl records per frame, --output FILE.mp4 the annotated video.

        --format text prints darknet's lines (`dog: 56%`) with each pixel box; jsonl one JSON \
        object per image (json is the same); coco a COCO results array (category ids mapped \
        from the 80 darknet classes; image_id from --image-ids or the digits of the file \
        name); csv one RFC 4180 row per detection. --shard K/N keeps image i of the sorted \
        input list when i mod N = K-1, so N machines split a corpus and their outputs \
        concatenate; --skip-existing resumes such a run into the same --output-dir.

        --save-labels DIR writes DIR/NAME.txt per image, AlexeyAB's -save_labels lines \
        (`class x y w h`, normalised; empty without detections). --crops DIR writes each \
        detection cut from the photo as DIR/NAME-CLASS-N.jpg (.png for a PNG), N its place \
        in the image's output. --tiles COLSxROWS (or auto: tiles about the network size) \
        detects on overlapping tiles (10% of a tile past each inner edge), joins boxes cut \
        by a tile edge and runs NMS across tiles: for small objects in large photos.

        EXAMPLES:
          darknet-swift detect yolov3-tiny.cfg yolov3-tiny.weights dog.jpg --output out/
          darknet-swift detect yolov3.cfg yolov3.weights photos/ --recursive --format jsonl
          find photos -name '*.jpg' | darknet-swift detect my.cfg my.weights --list -
          darknet-swift detect my.cfg my.weights photos/ --shard 2/8 --output-dir out/
          darknet-swift detect my.cfg my.weights photos/ --save-labels photos/ --crops crops/
          darknet-swift detect my.cfg my.weights aerial.jpg --tiles auto --output out/
        """
    )

    @OptionGroup var files: ModelArguments

    @OptionGroup var inputs: ImageInputOptions

    @OptionGroup var detection: DetectionOptions<Words>

    @OptionGroup var size: SizeOption<DetectorSize>

    @OptionGroup var engine: EngineOptions

    @OptionGroup var batch: BatchOption<BatchHelp>

    @Option(help: "Output format: text, jsonl (json), coco or csv.")
    var format: OutputFormat = .text

    @Option(help: "COCO image ids: a COCO annotations JSON or lines `<file name> <id>`.")
    var imageIds: String?

    @Option(help: "Process only shard K of N (1 ≤ K ≤ N) of the sorted inputs.")
    var shard: String?

    @Option(help: "Write annotated images into this folder (same names).")
    var outputDir: String?

    @Option(help: "Write the annotated image to this file, or into this folder when it ends in / (NAME-detections.EXT).")
    var output: String?

    @Option(help: "Write one YOLO label file per image into this folder (NAME.txt, as AlexeyAB's -save_labels).")
    var saveLabels: String?

    @Option(help: "Write each detection cropped from the image into this folder (NAME-CLASS-N.jpg, .png for PNGs).")
    var crops: String?

    @Option(help: "Detect on COLSxROWS overlapping tiles (e.g. 2x2), or auto (tiles about the network size), and merge.")
    var tiles: String?

    @Flag(help: "Overwrite existing output files; allow --output-dir and --crops to be an input folder.")
    var force = false

    @Flag(help: "Skip the images whose annotated image exists (resume a run into the same --output-dir).")
    var skipExisting = false

    @Flag(help: "No progress bar and no summary on stderr.")
    var quiet = false

    @Flag(help: ArgumentHelp("Decode, detect and write one image after another instead of overlapping them.",
                              discussion: "Overlapping holds up to four more photos in memory; with --conv-algorithm auto, a model whose Winograd choice is bound by memory (yolov3) always runs them one after another."))
    var noPipeline = false

    @OptionGroup var strict: StrictOption

    func validate() throws {
        if let shard, Shard(shard) == nil { throw ValidationError("--shard must be K/N with 1 ≤ K ≤ N, got \(shard)") }
        if output != nil && outputDir != nil { throw ValidationError("give --output or --output-dir, not both") }
        if skipExisting && output == nil && outputDir == nil { throw ValidationError("--skip-existing needs --output-dir or --output") }
        if skipExisting && force { throw ValidationError("give --skip-existing or --force, not both") }
        if let tiles, TilesOption(tiles) == nil { throw ValidationError("\(TilesOption.usage), got \(tiles)") }
    }

    func run() throws {
        if let video = try videoInput() { return try runVideo(video) }
        do {
            let loader = ModelLoader(cfg: files.cfg, weights: files.weights,
                                     options: ModelOptions(size: size.size, strict: strict.strict, threads: engine.threads,
                                                           convolutionAlgorithm: engine.convolutionAlgorithm, calibration: engine.calibration))
            let detector = try loader.detector(detection.detectorOptions)
            let classNames = try loader.classNames(detection.names, classes: detector.classCount)
            let filter = try detection.filter(names: classNames)
            let writer = ResultWriter(format: format, names: classNames, classCount: detector.classCount,
                                      imageIds: try COCOImageIds(file: imageIds), choices: JSONReport.choices(detector))
            let source = try inputs.source()
            // The list streams (a run starts at its first line and holds none of it) unless the
            // run needs every input first: --shard's sorted split, --output FILE's one image,
            // and --force with annotations (every input must be known not to be a target).
            let outputIsFile = output.map { !$0.hasSuffix("/") && !RawPath(argument: $0).isDirectory } ?? false
            var known: [InputImage]?
            var events: [InputEvent] = []
            let writesFiles = output != nil || outputDir != nil || saveLabels != nil || crops != nil
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
            } else {
                targets = nil
            }
            let labels = try saveLabels.map {
                try OutputFolder($0, inputs: known ?? [], folders: folders, refusesInputFolder: false, force: force)
            }
            let cropFolder = try crops.map {
                try OutputFolder($0, inputs: known ?? [], folders: folders, refusesInputFolder: true, force: force)
            }
            let run = DetectRun(detector: detector, filter: filter, writer: writer, names: classNames, batch: batch.batch,
                                progress: Progress(total: known?.count, quiet: quiet), targets: targets, skipExisting: skipExisting,
                                labels: labels, crops: cropFolder, tiling: tiles.flatMap(TilesOption.init))
            // Photos in flight would push a memory-bound model past twice its parameters.
            let pipelined = !noPipeline && !(engine.convolutionAlgorithm == .auto && detector.model.autoIsMemoryBound(batch: batch.batch))
            run.run(known != nil ? AnyIterator(events.makeIterator()) : AnyIterator(source), pipelined: pipelined)
            if let error = run.outputError { throw error }
            let count = run.succeeded + run.failed + run.skipped
            if !quiet && (run.failed > 0 || run.skipped > 0 || source.skipped > 0 || count > 1) {
                warn("\(count) image\(count == 1 ? "" : "s"): \(run.succeeded) done, \(run.failed) failed"
                     + (run.skipped > 0 ? ", \(run.skipped) skipped (output exists)" : "")
                     + (source.skipped > 0 ? ", \(source.skipped) non-image files skipped" : ""))
            }
            if run.failed > 0 || run.problems > 0 { throw Status.inputsFailed }
        } catch {
            throw conclude(error)
        }
    }
}

extension Detect {
    /// `detect` detects in images; its help explains the input mapping's default.
    enum Words: DetectionWords {
        static let input = "image"
        static let namesDefault = "coco.names beside the weights or cfg, else class numbers"
        static let mappingDefault = "as the cfg says: [net] letter_box, else letterbox for pjreddie-style cfgs and stretch for "
            + "AlexeyAB-style ones, as their darknets do"
    }

    /// A batch is up to `--batch` inputs; the last may be smaller.
    enum BatchHelp: OptionHelp {
        static let help = "Images per forward pass (the last batch may be smaller; same detections as 1)."
    }
}

extension DetectorOptions.NMSMode: ExpressibleByArgument {}
extension OutputFormat: ExpressibleByArgument {}
