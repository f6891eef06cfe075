import ArgumentParser
import CommandSupport
import Foundation

/// `darknet-swift detector test|map|valid|demo DATA CFG WEIGHTS [INPUT…]`: AlexeyAB's command
/// lines, his single-dash flags included, run by the native commands (`detect`, `map`,
/// `valid`, `stream`) they translate to (`DarknetTranslation`, `DarknetFlags`), so a darknet
/// script runs with only the program's name changed.
struct DarknetDetector: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detector",
        abstract: "AlexeyAB's `detector test|map|valid|demo DATA CFG WEIGHTS`, with his flags (-thresh 0.25 …).",
        discussion: """
        test runs detect (his -ext_output lines; -out FILE his JSON; -save_labels the label \
        files beside the images; -thresh, -hier, -letter_box); with one image it writes \
        predictions.jpg as his does, without one it reads image paths from stdin. map runs map \
        (-thresh, -iou_thresh, -points), valid runs valid (-out NAME), demo runs stream on his \
        source (a video, a stream URL, or camera -c N; -out_filename, -thresh). -dont_show is \
        accepted (no window is ever shown); -i \
        and his flags a subcommand does not read are ignored with a note; a flag that cannot \
        be honoured is refused by name. The DATA file is read as darknet reads it: names=, \
        classes=, valid=, difficult=, eval=, results=. Native options (--force, --quiet, \
        --output-dir …) may follow. See docs/cli.md, "Coming from darknet".

        EXAMPLES:
          darknet-swift detector test data/obj.data obj.cfg obj.weights img.jpg -thresh 0.3 -ext_output
          darknet-swift detector test obj.data obj.cfg obj.weights -dont_show -out r.json < list.txt
          darknet-swift detector map data/obj.data obj.cfg backup/obj_best.weights -points 101
          darknet-swift detector valid cfg/coco.data yolov4.cfg yolov4.weights
        """
    )

    @Argument(parsing: .captureForPassthrough, help: "test, map, valid or demo, then DATA CFG WEIGHTS [INPUT…] and his flags.")
    var words: [String] = []

    enum Error: Swift.Error, CustomStringConvertible {
        case missingSubcommand
        case unknownSubcommand(String)
        case notHere(String)
        case missingArguments(String)

        var description: String {
            switch self {
            case .missingSubcommand: return "detector needs a subcommand: test, map, valid or demo, then DATA CFG WEIGHTS"
            case .unknownSubcommand(let name): return "detector \(name): no such subcommand (test, map, valid or demo)"
            case .notHere(let name):
                return "detector \(name) is not supported: darknet-swift runs trained models (train, recall, calc_anchors and draw are his darknet's)"
            case .missingArguments(let name): return "detector \(name) needs DATA CFG WEIGHTS"
            }
        }
    }

    func run() throws {
        // The words are captured whole: the help is asked for here.
        if words.contains("--help") || words.contains("-h") { throw CleanExit.helpRequest(Self.self) }
        do {
            guard let subcommand = words.first else { throw Error.missingSubcommand }
            let rest = Array(words.dropFirst())
            switch subcommand {
            case "test":
                let translation = try translate(subcommand, rest, for: Detect.self)
                var arguments = Array(translation.positionals.dropFirst(3))
                let prompt = arguments.isEmpty
                if prompt { arguments = ["--list", "-"] }
                // His lines, unless a native --format follows and replaces them.
                let detect = try parsed(Detect.self, subcommand, [translation.positionals[1], translation.positionals[2]] + arguments
                                       + ["--data", translation.positionals[0], "--format", "ext"] + translation.native)
                try detect.run(darknet: DarknetTest(prompt: prompt))
            case "map":
                try run(Map.self, subcommand, rest)
            case "valid":
                try run(Valid.self, subcommand, rest)
            case "demo":
                let translation = try translate(subcommand, rest, for: Stream.self)
                let stream = try DemoTranslation.stream(translation)
                try stream.run()
            case "train", "recall", "calc_anchors", "draw":
                throw Error.notHere(subcommand)
            default:
                throw Error.unknownSubcommand(subcommand)
            }
        } catch let help as CleanExit {
            throw help
        } catch {
            throw conclude(error)
        }
    }

    /// The words after the subcommand, translated for `command`; notes printed.
    private func translate(_ subcommand: String, _ words: [String], for command: ParsableCommand.Type) throws -> DarknetTranslation {
        let translation = try DarknetTranslation(subcommand: subcommand, words: words,
                                                 nativeOptions: DarknetSpelling.options(of: command))
        for note in translation.notes { warn("note: \(note)") }
        if subcommand != "demo" && translation.positionals.count < 3 { throw Error.missingArguments(subcommand) }
        return translation
    }

    /// `command` parsed from `arguments`, its usage errors worded as this subcommand's.
    private func parsed<Command: ParsableCommand>(_ command: Command.Type, _ subcommand: String, _ arguments: [String]) throws -> Command {
        do {
            return try command.parse(arguments)
        } catch let help as CleanExit {
            throw help
        } catch {
            throw CLIError.usage("detector \(subcommand): " + command.message(for: error))
        }
    }

    /// `command` run on the translation of `words` (DATA CFG WEIGHTS first, as theirs).
    private func run<Command: ParsableCommand>(_ command: Command.Type, _ subcommand: String, _ words: [String]) throws {
        let translation = try translate(subcommand, words, for: command)
        var native = try parsed(command, subcommand, translation.positionals + translation.native)
        try native.run()
    }
}
