import ArgumentParser
import Darknet

/// `detector demo DATA CFG WEIGHTS [VIDEO]` as `stream` runs it: his `demo` (demo.c) detects
/// in a video file, a stream URL or a camera (`-c N`, the default 0) and writes the annotated
/// video to `-out_filename`. Here the source becomes `stream`'s source argument (a camera is
/// `/dev/videoN`), `-out_filename` its video output, `-thresh` and `-hier` its thresholds,
/// the `.data`'s `names=` its `--names`. A `stream` without video sources (it reads frames on
/// stdin only) cannot run it: that is one "not yet" error naming what is missing, never a
/// demo that runs on something else.
enum DemoTranslation {
    /// `stream`'s option for the annotated video file.
    static let videoOutput = "--output-video"
    /// Stands for `-c N` in `DarknetFlags.table`: becomes the source `/dev/videoN`.
    static let camera = "\u{0}camera"

    enum Error: Swift.Error, CustomStringConvertible {
        case missingArguments
        case notYet(missing: String, cfg: String, weights: String)

        var description: String {
            switch self {
            case .missingArguments: return "detector demo needs DATA CFG WEIGHTS [VIDEO]"
            case .notYet(let missing, let cfg, let weights):
                return "detector demo: not yet: this build's stream has no \(missing) (issue #52); meanwhile pipe the frames in: "
                    + "ffmpeg -i VIDEO -f image2pipe -c:v mjpeg - | darknet-swift stream \(cfg) \(weights)"
            }
        }
    }

    /// The `stream` command `translation` asks for, parsed: throws `notYet` when this build's
    /// `stream` takes no source argument or no video output.
    static func stream(_ translation: DarknetTranslation) throws -> Stream {
        let positionals = translation.positionals
        guard positionals.count >= 3 else { throw Error.missingArguments }
        let (data, cfg, weights) = (positionals[0], positionals[1], positionals[2])
        var native: [String] = []
        var source = positionals.count > 3 ? positionals[3] : nil
        var words = translation.native[...]
        while let word = words.popFirst() {
            if word == camera, let index = words.popFirst() {
                source = source ?? "/dev/video\(index)"
            } else {
                native.append(word)
            }
        }
        let names = try DataFileOptions.read(data).existingPath("names", for: "detector demo's class names")
        let sourceArguments = [cfg, weights, source ?? "/dev/video0"]
        if (try? Stream.parse(sourceArguments)) == nil {
            throw Error.notYet(missing: "video source (a file, a URL or a camera as its argument)", cfg: cfg, weights: weights)
        }
        if native.contains(videoOutput), DarknetSpelling.options(of: Stream.self)[videoOutput] == nil {
            throw Error.notYet(missing: "annotated video output (\(videoOutput), his -out_filename)", cfg: cfg, weights: weights)
        }
        do {
            return try Stream.parse(sourceArguments + ["--names", names] + native)
        } catch {
            throw CLIError.usage("detector demo: " + Stream.message(for: error))
        }
    }
}
