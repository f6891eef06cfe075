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

        --format text prints darknet's lines (`dog: 56%`) with each pixel box; ext AlexeyAB's \
        -ext_output lines; json one JSON document (an array with an object per image); jsonl \
        one JSON object per image and line; coco a COCO results array (category ids mapped from \
        the 80 darknet classes; image_id from --image-ids or the digits of the file name); csv \
        one RFC 4180 row per detection; darknet-json AlexeyAB's -out file. --json, --jsonl, \
        --csv, --coco and --darknet-json FILE write more formats from the same pass. --shard \
        K/N keeps image i of the sorted input list when i mod N = K-1, so N machines split a \
        corpus and their outputs concatenate; --skip-existing resumes such a run into the same \
        --output-dir.

        --save-labels DIR writes DIR/NAME.txt per image, AlexeyAB's -save_labels lines \
        (`class x y w h`, normalised; empty without detections); --save-labels-beside-images \
        writes them where darknet's training reads them, as -save_labels does. --crops DIR writes each \
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
          darknet-swift detect obj.cfg obj.weights photos/ --data obj.data --jsonl r.jsonl --csv r.csv --output-dir out/
        """
    )

    @OptionGroup var files: ModelArguments

    @OptionGroup var inputs: ImageInputOptions

    @OptionGroup var data: DataFileOptions

    @OptionGroup var detection: DetectionOptions<Words>

    @OptionGroup var size: SizeOption<DetectorSize>

    @OptionGroup var engine: EngineOptions

    @OptionGroup var batch: BatchOption<BatchHelp>

    @Option(help: "Output format: text, ext, json (one document), jsonl, coco, csv or darknet-json.")
    var format: OutputFormat = .text

    @OptionGroup var resultFiles: ResultFileOptions

    @OptionGroup var imageIds: ImageIdsOption

    @Option(help: "Process only shard K of N (1 ≤ K ≤ N) of the sorted inputs.")
    var shard: String?

    @Option(help: "Write annotated images into this folder (same names).")
    var outputDir: String?

    @Option(help: "Write the annotated image to this file, or into this folder when it ends in / (NAME-detections.EXT).")
    var output: String?

    @Option(help: "Write one YOLO label file per image into this folder (NAME.txt, as AlexeyAB's -save_labels).")
    var saveLabels: String?

    @Flag(help: "Write each image's YOLO label file where darknet's training reads it (beside the image, or labels/ for images/ and JPEGImages/), as -save_labels.")
    var saveLabelsBesideImages = false

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
        if let tiles, TilesOption(tiles) == nil { throw ValidationError("\(TilesOption.usage), got \(tiles)") }
        if saveLabels != nil && saveLabelsBesideImages { throw ValidationError("give --save-labels or --save-labels-beside-images, not both") }
    }

    func run() throws {
        if let video = try videoInput() { return try runVideo(video) }
        do {
            try run(darknet: nil)
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
