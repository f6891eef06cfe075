import ArgumentParser
import CommandSupport

/// The inputs `detect` and `classify` take: images and folders on the command line, a `--list`
/// file, and whether folders are read with their sub-folders (`InputSource`).
struct ImageInputOptions: ParsableArguments {
    @Argument(help: "JPEG or PNG images, or folders of them (- reads one image from stdin).")
    var images: [String] = []

    @Option(help: "A file listing images, one path per line (- reads stdin).")
    var list: String?

    @Flag(help: "Also take images in sub-folders of the folders given.")
    var recursive = false

    func validate() throws {
        if images.isEmpty && list == nil { throw ValidationError("give at least one image, folder or --list") }
        if images.contains("-") && list == "-" { throw ValidationError("stdin can hold the image - or the --list -, not both") }
    }

    /// The paths given on the command line, as given.
    var paths: [RawPath] { images.map(RawPath.init(argument:)) }

    /// The inputs in order, the list read as the run goes; `prompt` is written to stdout
    /// before each wait for a line of the list (`detector test` on a terminal).
    func source(prompt: String? = nil) throws -> InputSource {
        try InputSource(paths: paths, list: list.map(RawPath.init(argument:)), recursive: recursive, prompt: prompt)
    }
}
