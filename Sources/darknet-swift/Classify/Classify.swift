import ArgumentParser
import CommandSupport
import Darknet
import Foundation
import Imaging

struct Classify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Classify images, as `darknet classifier predict` does.",
        discussion: """
        Letterboxes each image to the network size and prints darknet's lines \
        (` 12.34%: label`, best first, after a `path:` line). Inputs are taken as `detect` \
        takes them: image files (- reads one from stdin), folders (--recursive for \
        sub-folders) and --list files; an image that cannot be read or decoded is reported on \
        stderr (path: reason) and the run goes on. --format jsonl prints one object per image \
        ({"path", "width", "height", "classes": [{"index", "label", "confidence"}]}), json \
        the same objects as one document (an array), csv one row per class. --data FILE takes \
        the labels from a darknet .data file (names=, else labels=) and checks its classes=. \
        Exit status: 0 all inputs done, 1 some inputs \
        failed or stdout could not be written, 2 usage or model error.
        """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, jsonl, csv
    }

    @OptionGroup var files: ModelArguments

    @OptionGroup var inputs: ImageInputOptions

    @Option(help: "Class labels, one per line (default: class numbers).")
    var labels: String?

    @OptionGroup var data: DataFileOptions

    @Option(help: "How many classes to print.")
    var top: Int = 5

    @OptionGroup var size: SizeOption<ClassifierSize>

    @OptionGroup var threads: ThreadsOption

    @Option(help: "Output format: text, json (one document), jsonl or csv.")
    var format: Format = .text

    @Flag(help: "No summary on stderr.")
    var quiet = false

    @OptionGroup var strict: StrictOption

    func validate() throws {
        guard top >= 1 else { throw ValidationError("--top must be ≥ 1, got \(top)") }
    }

    func run() throws {
        do {
            let loader = ModelLoader(cfg: files.cfg, weights: files.weights,
                                     options: ModelOptions(size: size.size, strict: strict.strict, threads: threads.threads))
            let classifier = try loader.classifier(labels: labels, data: try data.read())
            let channels = classifier.model.net.channels
            let source = try inputs.source()
            var done = 0, failed = 0, problems = 0
            if format == .csv { try StandardOutput.write(Self.csvHeader) }
            if format == .json { try StandardOutput.write("[") }
            for event in source {
                guard case .image(let input) = event else {
                    if case .problem(let path, let error) = event { warn(escapedForTerminal("\(path): \(error)")) }
                    problems += 1
                    continue
                }
                do {
                    // Decoded with [net] channels, as AlexeyAB's darknet loads it (a JPEG's Y plane for 1).
                    let image = try Image(decoding: FileBytes.imageBytes(input.path), name: input.display,
                                          channels: channels)
                    let scores = try classifier.classify(image, top: top)
                    try StandardOutput.write((format == .json ? (done == 0 ? "\n" : ",\n") : "")
                                             + render(path: input.display, image: image, scores: scores))
                    done += 1
                } catch let error as OutputError {
                    throw error
                } catch {
                    failed += 1
                    let message = String(describing: error)
                    warn(escapedForTerminal(message.hasPrefix(input.display) ? message : "\(input.display): \(message)"))
                }
            }
            if format == .json { try StandardOutput.write(done == 0 ? "]\n" : "\n]\n") }
            if !quiet && (failed > 0 || source.skipped > 0 || done + failed > 1) {
                warn("\(done + failed) image\(done + failed == 1 ? "" : "s"): \(done) done, \(failed) failed"
                     + (source.skipped > 0 ? ", \(source.skipped) non-image files skipped" : ""))
            }
            if failed > 0 || problems > 0 { throw Status.inputsFailed }
        } catch {
            throw conclude(error)
        }
    }

    func render(path: String, image: Image, scores: [Classifier.Score]) -> String {
        switch format {
        case .text: return Self.text(path: path, scores: scores)
        case .json: return Self.json(path: path, image: image, scores: scores)
        case .jsonl: return Self.json(path: path, image: image, scores: scores) + "\n"
        case .csv: return Self.csv(path: path, image: image, scores: scores)
        }
    }

    /// darknet's `printf("%5.2f%%: %s\n", predictions[index]*100, names[index])` after a `path:` line.
    static func text(path: String, scores: [Classifier.Score]) -> String {
        var text = "\(escapedForTerminal(path)):\n"
        for score in scores {
            text += String(format: "%5.2f%%: ", Double(score.confidence) * 100) + escapedForTerminal(score.label) + "\n"
        }
        return text
    }

    /// One JSON object: path, width, height, classes [{index, label, confidence}], best first.
    static func json(path: String, image: Image, scores: [Classifier.Score]) -> String {
        let classes = scores.map {
            "{\"index\":\($0.index),\"label\":\(JSONReport.quoted($0.label)),\"confidence\":\(JSONReport.number($0.confidence))}"
        }
        return "{\"path\":\(JSONReport.quoted(path)),\"width\":\(image.width),\"height\":\(image.height),"
            + "\"classes\":[\(classes.joined(separator: ","))]}"
    }

    static let csvHeader = "path,width,height,rank,index,label,confidence\r\n"

    /// RFC 4180 rows (as `detect --format csv`), one per class, rank counting from 1.
    static func csv(path: String, image: Image, scores: [Classifier.Score]) -> String {
        scores.enumerated().map { rank, score in
            [CSVReport.field(path), "\(image.width)", "\(image.height)", "\(rank + 1)", "\(score.index)",
             CSVReport.field(score.label), JSONReport.number(score.confidence)].joined(separator: ",") + "\r\n"
        }.joined()
    }
}
