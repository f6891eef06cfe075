import CommandSupport
import Darknet
import Foundation
import Imaging
import YOLO

/// `map`'s pass over the labelled images, as AlexeyAB's `validate_detector_map` (detector.c)
/// makes it: each image's candidates at 0.005 after NMS, its label file read as `read_boxes`
/// reads it (`LabelFile.path(forImage:)`), and the `difficult` list's label file of the image
/// at the same place, all fed to `DetectionEvaluation`. Where he stops or reads garbage, this
/// names the image and leaves it out: an image that cannot be decoded, a label file that is
/// not five numbers a line or names a class the model lacks. A missing label file is his
/// "Can't open label file" warning and the image counts with no objects.
struct MapRun {
    /// `validate_detector_map`'s `thresh`: every box above it is ranked.
    static let detectionThreshold: Float = 0.005

    /// An image left out, and why (one line: the file and line when a label file is wrong).
    struct Failure {
        var path: String
        var reason: String
    }

    enum Error: Swift.Error, CustomStringConvertible {
        case difficultCount(file: String, paths: Int, images: Int)

        var description: String {
            switch self {
            case .difficultCount(let file, let paths, let images):
                return "\(file): \(paths) paths, but the image list has \(images): difficult= lists the same images, in order"
            }
        }
    }

    let detector: Detector
    let quiet: Bool
    private(set) var evaluation: DetectionEvaluation
    private(set) var failures: [Failure] = []
    /// Label files that do not exist, one per image.
    private(set) var missingLabels: [String] = []

    init(detector: Detector, classes: Int, quiet: Bool) {
        self.detector = detector
        self.quiet = quiet
        evaluation = DetectionEvaluation(classes: classes)
    }

    /// The `difficult=` list: one path per image of the valid list, in the same order.
    static func difficultList(_ file: String, count: Int) throws -> [RawPath] {
        let paths = try DataSetArguments.lines(file)
        guard paths.count == count else { throw Error.difficultCount(file: file, paths: paths.count, images: count) }
        return paths
    }

    /// Evaluates `images` (with `problems`, inputs that could not be listed), drawing a progress bar.
    mutating func run(_ images: [InputImage], problems: [InputEvent] = [], difficult: [RawPath]?) {
        for case .problem(let path, let error) in problems { fail(path, "\(error)") }
        var progress = Progress(total: images.count, quiet: quiet)
        for (index, input) in images.enumerated() {
            progress.update(done: index)
            do {
                let bytes = try FileBytes.imageBytes(input.path)
                let image = try Image(decoding: bytes, name: input.display, channels: detector.model.net.channels)
                let truth = try labels(for: input.path, progress: &progress)
                let hard = try difficult.map { try labels(for: $0[index], progress: &progress) } ?? []
                evaluation.add(candidates: try detector.candidates(in: image), truth: truth, difficult: hard)
            } catch {
                progress.erase()
                fail(input.display, "\(error)")
            }
        }
        progress.update(done: images.count)
        progress.finish()
    }

    private mutating func fail(_ path: String, _ message: String) {
        failures.append(Failure(path: path, reason: message))
        warn(escapedForTerminal(message.hasPrefix(path) ? message : "\(path): \(message)"))
    }

    /// The objects of `image`'s label file; none (and a warning) when it does not exist.
    private mutating func labels(for image: RawPath, progress: inout Progress) throws -> [LabelBox] {
        guard !image.isStandardInput, let name = validUTF8(image.bytes).flatMap(LabelFile.path(forImage:)) else {
            throw OutputFolder.Error.noLabelName(image.display)
        }
        let path = RawPath(argument: name)
        guard path.exists else {
            missingLabels.append(path.display)
            if !quiet {
                progress.erase()
                warn("warning: can't open label file \(path.display) (his \"Can't open label file\"): the image counts with no objects")
            }
            return []
        }
        let text = String(decoding: try FileBytes.read(path, limit: ModelLimits().maximumNamesBytes), as: UTF8.self)
        return try LabelFile.parse(text, file: path.display, classes: evaluation.classes)
    }
}
