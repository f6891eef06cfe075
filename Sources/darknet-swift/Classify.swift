import ArgumentParser
import Darknet
import Foundation
import Imaging

struct Classify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Classify images, as `darknet classifier predict` does.",
        discussion: """
        Letterboxes each image to the network size and prints darknet's lines \
        (` 12.34%: label`, best first), or one JSON object per image with --format json.
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

    @Option(help: "Class labels, one per line (default: class numbers).")
    var labels: String?

    @Option(help: "How many classes to print.")
    var top: Int = 5

    @Option(help: "Network input width and height (overrides the cfg's [net]).")
    var size: Int?

    @Option(help: "Output format: text or json.")
    var format: Format = .text

    @Flag(help: "Treat unknown cfg keys as errors instead of warnings.")
    var strict = false

    func validate() throws {
        guard top >= 1 else { throw ValidationError("--top must be ≥ 1, got \(top)") }
        if let size, size < 1 || size > 16384 { throw ValidationError("--size must be in 1...16384, got \(size)") }
        if images.isEmpty { throw ValidationError("give at least one image") }
    }

    func run() throws {
        do {
            let classifier = try Classifier(cfg: cfg, weights: weights, labels: labels, width: size, height: size)
            try report(classifier.model.warnings, strict: strict)
            for path in images {
                let image = try Image(contentsOf: path)
                let scores = try classifier.classify(image, top: top)
                switch format {
                case .text: print(Self.text(path: path, scores: scores), terminator: "")
                case .json: print(try Self.json(path: path, image: image, scores: scores))
                }
            }
        } catch let error as ExitCode {
            throw error
        } catch {
            throw fail(error)
        }
    }

    /// darknet's `printf("%5.2f%%: %s\n", predictions[index]*100, names[index])` after a `path:` line.
    static func text(path: String, scores: [Classifier.Score]) -> String {
        var text = "\(path):\n"
        for score in scores {
            text += String(format: "%5.2f%%: ", Double(score.confidence) * 100) + score.label + "\n"
        }
        return text
    }

    struct Report: Encodable {
        var image: String
        var width: Int
        var height: Int
        var classes: [Classifier.Score]
    }

    static func json(path: String, image: Image, scores: [Classifier.Score]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let report = Report(image: path, width: image.width, height: image.height, classes: scores)
        return String(decoding: try encoder.encode(report), as: UTF8.self)
    }
}
