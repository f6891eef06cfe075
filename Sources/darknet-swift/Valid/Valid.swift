import ArgumentParser
import CommandSupport
import Darknet
import Foundation
import Imaging
import YOLO

struct Valid: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Detections of a validation set, written as darknet's `detector valid` writes them.",
        discussion: """
        The images are the .data file's valid= list, or --valid LIST, or the images and folders \
        given. With eval=coco in the .data file, one COCO results array goes to \
        RESULTS/NAME.json (NAME: --out-name, default coco_results; category ids as his coco_ids \
        table for 80 classes, the class number otherwise; image ids from --image-ids or the \
        digits of the file name); otherwise one file per class, RESULTS/NAMEclass.txt (NAME \
        default comp4_det_test_), a line `ID prob xmin ymin xmax ymax` per box, in pixels \
        counted from 1 (VOC's devkit). RESULTS is --results, else the .data's results=, else \
        results. Every box above the threshold is written: AlexeyAB's validate_detector keeps \
        them above 0.001 with NMS at 0.6 for his cfgs, pjreddie's above 0.005 with NMS at 0.45. \
        Existing results files are replaced only with --force.

        EXAMPLES:
          darknet-swift valid cfg/coco.data yolov4.cfg yolov4.weights --image-ids instances_val2017.json
          darknet-swift valid voc.data yolov3-voc.cfg yolov3-voc.weights --results results/
        """
    )

    @OptionGroup var set: DataSetArguments

    @Option(help: "Folder of the results files (default: the .data's results=, else results).")
    var results: String?

    @Option(help: "Name of the results files (his -out): NAME.json for eval=coco, NAMEclass.txt otherwise.")
    var outName: String?

    @OptionGroup var boxes: BoxSelectionOptions<DataSetWords>

    @OptionGroup var fitting: MappingOption<DataSetWords>

    @OptionGroup var imageIds: ImageIdsOption

    @OptionGroup var size: SizeOption<DetectorSize>

    @OptionGroup var engine: EngineOptions

    @Flag(help: "Overwrite existing results files.")
    var force = false

    @Flag(help: "No progress bar and no summary on stderr.")
    var quiet = false

    @OptionGroup var strict: StrictOption

    func run() throws {
        do {
            let loader = ModelLoader(set.files, size: size.size, strict: strict.strict, engine: engine)
            let dataFile = try set.dataFile()
            let kind = try ValidOutput.Kind(dataFile)
            let detector = try loader.detector(boxes.detectorOptions(mapping: fitting.mapping?.value, defaults: .valid))
            let names = try loader.classNames(nil, data: dataFile, classes: detector.classCount)
            let (found, problems) = try set.inputs(dataFile, for: "valid's images")
            let classes = try boxes.classes.map { try DetectionFilter.classIds($0, names: names) }
            let folder = results ?? dataFile.value("results") ?? "results"
            var output = try ValidOutput(kind: kind, folder: folder, name: outName, names: names, classCount: detector.classCount,
                                         imageIds: COCOImageIds(file: imageIds.imageIds), force: force,
                                         inputs: found.map(\.path))
            var failed = 0
            for case .problem(let path, let error) in problems {
                failed += 1
                warn(escapedForTerminal("\(path): \(error)"))
            }
            var progress = Progress(total: found.count, quiet: quiet)
            for (index, input) in found.enumerated() {
                progress.update(done: index)
                do {
                    let image = try Image(decoding: FileBytes.imageBytes(input.path), name: input.display,
                                          channels: detector.model.net.channels)
                    var candidates = try detector.candidates(in: image)
                    if let classes {
                        for i in candidates.indices {
                            for c in candidates[i].probabilities.indices where !classes.contains(c) { candidates[i].probabilities[c] = 0 }
                        }
                    }
                    try output.write(candidates, path: input.path, width: image.width, height: image.height)
                } catch let error as OutputError {
                    output.abandon()
                    throw error
                } catch {
                    failed += 1
                    progress.erase()
                    let message = String(describing: error)
                    warn(escapedForTerminal(message.hasPrefix(input.display) ? message : "\(input.display): \(message)"))
                }
            }
            progress.update(done: found.count)
            progress.finish()
            try output.finish()
            if !quiet {
                warn("\(found.count) image\(found.count == 1 ? "" : "s"): \(found.count - failed) done, \(failed) failed; "
                     + "wrote \(output.description); threshold \(boxes.detectorOptions(mapping: nil, defaults: .valid).thresholdChoice(detector.model))")
            }
            if failed > 0 { throw Status.inputsFailed }
        } catch {
            throw conclude(error)
        }
    }
}

