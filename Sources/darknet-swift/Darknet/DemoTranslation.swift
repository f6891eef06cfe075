import ArgumentParser
import Darknet

/// `detector demo DATA CFG WEIGHTS [VIDEO]` as `stream` runs it: his `demo` (demo.c) detects
/// in a video file, a stream URL or a camera (`-c N`, the default 0) and writes the annotated
/// video to `-out_filename`. Here the source becomes `stream`'s source argument (a camera by
/// its number), `-out_filename` its `--output`, `-thresh` and `-hier` its thresholds, the
/// `.data`'s `names=` its `--names`. His windows, servers and frame files are refused by name
/// (`DarknetFlags`).
enum DemoTranslation {
    /// `stream`'s option for the annotated video file.
    static let videoOutput = "--output"
    /// Stands for `-c N` in `DarknetFlags.table`: becomes the source `N`.
    static let camera = "\u{0}camera"

    enum Error: Swift.Error, CustomStringConvertible {
        case missingArguments

        var description: String { "detector demo needs DATA CFG WEIGHTS [VIDEO]" }
    }

    /// The `stream` command `translation` asks for, parsed.
    static func stream(_ translation: DarknetTranslation) throws -> Stream {
        let positionals = translation.positionals
        guard positionals.count >= 3 else { throw Error.missingArguments }
        let (data, cfg, weights) = (positionals[0], positionals[1], positionals[2])
        var native: [String] = []
        var source = positionals.count > 3 ? positionals[3] : nil
        var words = translation.native[...]
        while let word = words.popFirst() {
            if word == camera, let index = words.popFirst() {
                source = source ?? index
            } else {
                native.append(word)
            }
        }
        let names = try DataFileOptions.read(data).existingPath("names", for: "detector demo's class names")
        do {
            return try Stream.parse([cfg, weights, source ?? "0", "--names", names] + native)
        } catch {
            throw CLIError.usage("detector demo: " + Stream.message(for: error))
        }
    }
}
