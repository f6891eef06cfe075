import ArgumentParser
import Darknet
import Foundation
import Imaging
import YOLO

struct Detect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Detect objects in images, as `darknet detect` does.",
        discussion: """
        Prints darknet's lines (`dog: 56%`) with each pixel box, or one JSON object per image \
        with --format json. --output writes the annotated image (PNG or JPEG by extension; a \
        folder when several images are given).
        """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Argument(help: "Darknet .cfg file.")
    var cfg: String

    @Argument(help: "Darknet .weights file.")
    var weights: String

    @Argument(help: "JPEG or PNG images.")
    var images: [String]

    @Option(help: "Class names, one per line (default: coco.names beside the weights or cfg, else class numbers).")
    var names: String?

    @Option(help: "Probability a detection must exceed.")
    var thresh: Float = 0.5

    @Option(help: "IoU above which non-maximum suppression removes a box (0 disables NMS).")
    var nms: Float = 0.45

    @Option(help: "Network input width and height (overrides the cfg's [net]).")
    var size: Int?

    @Option(help: "BLAS threads (default: one per core).")
    var threads: Int?

    @Option(help: "Convolution method: auto (Winograd where it pays), im2col (darknet's) or winograd.")
    var convAlgorithm: ConvolutionAlgorithm = .auto

    @Option(help: "Output format: text or json.")
    var format: Format = .text

    @Option(help: "Write the annotated image here (a folder when several images are given).")
    var output: String?

    @Flag(help: "Overwrite existing output files.")
    var force = false

    @Flag(help: "Treat unknown cfg keys as errors instead of warnings.")
    var strict = false

    func validate() throws {
        guard thresh >= 0, thresh <= 1 else { throw ValidationError("--thresh must be in 0...1, got \(thresh)") }
        guard nms >= 0, nms <= 1 else { throw ValidationError("--nms must be in 0...1, got \(nms)") }
        if let size, size < 32 || size > 16384 || size % 32 != 0 {
            throw ValidationError("--size must be a multiple of 32 in 32...16384, got \(size)")
        }
        if let threads, threads < 1 || threads > 1024 { throw ValidationError("--threads must be ≥ 1, got \(threads)") }
        if images.isEmpty { throw ValidationError("give at least one image") }
    }

    func run() throws {
        do {
            try detectAll()
        } catch let error as ExitCode {
            throw error
        } catch {
            throw fail(error)
        }
    }

    private func detectAll() throws {
        var options = DetectorOptions(threshold: thresh, nmsThreshold: nms, width: size, height: size, threads: threads,
                                      convolutionAlgorithm: convAlgorithm)
        if nms == 0 { options.nmsMode = .none }
        let detector = try Detector(cfg: cfg, weights: weights, options: options)
        try report(detector.model.warnings, strict: strict)
        let classNames = try loadNames(classes: detector.classCount)
        let outputs = try AnnotationOutputs(path: output, images: images, force: force)
        for path in images {
            let image = try Image(contentsOf: path)
            let start = DispatchTime.now()
            let detections = try detector.detect(in: image)
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
            switch format {
            case .text:
                print(TextReport.render(path: path, image: image, detections: detections, names: classNames, seconds: seconds), terminator: "")
            case .json:
                print(JSONReport.render(path: path, image: image, detections: detections, names: classNames))
            }
            if let target = outputs.target(for: path) {
                var annotated = image
                Annotator.draw(detections, on: &annotated, names: classNames, classes: detector.classCount)
                try annotated.write(to: target)
            }
        }
    }

    private func loadNames(classes: Int) throws -> [String] {
        if let names {
            return try ClassNames.load(contentsOf: names)
        }
        let candidates = [weights, cfg].flatMap { file -> [String] in
            let folder = URL(fileURLWithPath: file).deletingLastPathComponent()
            return [folder.appendingPathComponent("coco.names").path,
                    folder.appendingPathComponent("data/coco.names").path,
                    folder.deletingLastPathComponent().appendingPathComponent("data/coco.names").path]
        }
        if classes == 80, let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) {
            return try ClassNames.load(contentsOf: found)
        }
        return (0..<classes).map(String.init)
    }
}

extension ConvolutionAlgorithm: ExpressibleByArgument {}
