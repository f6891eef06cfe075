import ArgumentParser
import CommandSupport
import Darknet
import Foundation
import YOLO

struct Map: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Mean average precision of a detector on a labelled set, as AlexeyAB's `detector map` computes it.",
        discussion: """
        The images are the .data file's valid= list (one path a line, relative to the current \
        folder as darknet opens it), or --valid LIST, or the images and folders given. Each \
        image's ground truth is darknet's YOLO label file (`class x y w h`, relative): img.txt \
        beside img.jpg, or under labels/ for images/… and JPEGImages/ layouts; the .data's \
        difficult= list names images whose objects are neither rewarded nor penalised. The \
        detector keeps every box above 0.005 (--candidates) with the cfg's fitting and NMS at \
        0.45, as his does; each class's AP is the area under its precision-recall curve (--points 0), or the \
        mean precision at 11 (VOC2007) or 101 (COCO) recall points, for matches above \
        --iou-thresh; TP, FP, FN, precision, recall, F1 and average IoU count the boxes above \
        --thresh. The lines are his (class_id = 0, name = person, ap = 100.00% …, mean average \
        precision (mAP@0.50) = …), plus mAP@0.50:0.95, the mean over IoU 0.50, 0.55 … 0.95. \
        An image that cannot be read or whose label file is malformed is named and left out \
        (exit status 1); a missing label file is a warning (the image has no objects).

        EXAMPLES:
          darknet-swift map obj.data yolov4-tiny-obj.cfg backup/yolov4-tiny-obj_best.weights
          darknet-swift map obj.data obj.cfg obj.weights --points 101 --format json > map.json
          darknet-swift map obj.data obj.cfg obj.weights val/ --iou-thresh 0.75
        """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @OptionGroup var set: DataSetArguments

    @Option(help: "Confidence above which a detection counts for TP, FP, precision, recall and average IoU.")
    var thresh: Float = 0.25

    @Option(help: ArgumentHelp("Confidence above which a box is kept for NMS and ranked for the AP (darknet's 0.005).",
                               discussion: "Raise it for models with very many candidates, such as synthetic weights: "
                                   + "NMS takes time quadratic in a class's candidates. The APs then leave out what is below it."))
    var candidates: Float = MapRun.detectionThreshold

    @Option(help: "IoU above which a detection matches a ground-truth box.")
    var iouThresh: Float = 0.5

    @Option(help: "Recall points of each class's AP: 0 the area under the curve, 11 VOC2007, 101 COCO.")
    var points: Int = 0

    @OptionGroup var fitting: MappingOption<DataSetWords>

    @OptionGroup var size: SizeOption<DetectorSize>

    @OptionGroup var engine: EngineOptions

    @Option(help: "Output format: text (his lines) or json (every figure).")
    var format: Format = .text

    @Flag(help: "No progress bar and no warnings for missing label files.")
    var quiet = false

    @OptionGroup var strict: StrictOption

    func validate() throws {
        guard (0...1).contains(thresh) else { throw ValidationError("--thresh must be in 0...1, got \(thresh)") }
        guard (0...1).contains(candidates) && candidates <= thresh else {
            throw ValidationError("--candidates must be in 0...1 and not above --thresh (\(thresh)), got \(candidates)")
        }
        guard (0...1).contains(iouThresh) else { throw ValidationError("--iou-thresh must be in 0...1, got \(iouThresh)") }
        guard points == 0 || (2...10_000).contains(points) else {
            throw ValidationError("--points must be 0 (area under the curve) or 2...10000, got \(points)")
        }
    }

    func run() throws {
        do {
            let loader = ModelLoader(set.files, size: size.size, strict: strict.strict, engine: engine)
            let dataFile = try set.dataFile()
            let selection = DetectorSelection(options: DetectorOptions(mapping: fitting.mapping?.value),
                                              threshold: candidates, nmsThreshold: 0.45)
            let detector = try loader.detector(selection)
            let names = try loader.classNames(nil, data: dataFile, classes: detector.classCount, rule: .refuse)
            let (found, problems) = try set.inputs(dataFile, for: "map's images")
            let difficult = try dataFile.entry("difficult") == nil ? nil
                : MapRun.difficultList(dataFile.existingPath("difficult", for: "the difficult objects"), count: found.count)
            var run = MapRun(detector: detector, classes: detector.classCount, quiet: quiet)
            run.run(found, problems: problems, difficult: difficult)
            let report = run.evaluation.report(iouThreshold: iouThresh, confidenceThreshold: thresh, points: points)
            let coco = run.evaluation.meanAveragePrecisionOverCOCOThresholds(confidenceThreshold: thresh, points: points)
            let result = MapResult(report: report, coco: coco, names: names, images: found.count, failures: run.failures,
                                   missingLabels: run.missingLabels)
            try StandardOutput.write(format == .json ? result.json(choices: JSONReport.choices(detector, threshold:
                DefaultThreshold(value: candidates, reason: candidates == MapRun.detectionThreshold ? "detector map's" : "--candidates")))
                : result.text())
            if !quiet && (!run.failures.isEmpty || !run.missingLabels.isEmpty) { warn(result.summary) }
            if !run.failures.isEmpty { throw Status.inputsFailed }
        } catch {
            throw conclude(error)
        }
    }
}
