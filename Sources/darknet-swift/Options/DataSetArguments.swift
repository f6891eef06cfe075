import ArgumentParser
import CommandSupport
import Darknet

/// The arguments of the commands that run over a darknet data set (`map`, `valid`, as his
/// `detector map` and `detector valid`): the `.data` file, the model files, and the images —
/// the `.data`'s `valid=` list, or `--valid LIST`, or images and folders. Declared here once.
struct DataSetArguments: ParsableArguments {
    @Argument(help: "A darknet .data file (names=, valid=, difficult=, eval=, results=…).")
    var data: String

    @OptionGroup var files: ModelArguments

    @Argument(help: "Images or folders of them, instead of the .data's valid= list.")
    var images: [String] = []

    @Option(help: "A file listing the images, one path per line, instead of the .data's valid=.")
    var valid: String?

    func validate() throws {
        if valid != nil && !images.isEmpty { throw ValidationError("give --valid or images, not both") }
    }

    /// The `.data` file, its warnings printed.
    func dataFile() throws -> DataFile { try DataFileOptions.read(data) }

    /// Every image, in order, and the inputs that could not be listed; `purpose` names the
    /// command in the error for a `.data` file without `valid=`. A list is read as darknet's
    /// `get_paths` reads it (`lines`): an image listed twice counts twice, as in his mAP.
    func inputs(_ dataFile: DataFile, for purpose: String) throws -> (images: [InputImage], problems: [InputEvent]) {
        if images.isEmpty {
            let list = try valid ?? dataFile.existingPath("valid", for: purpose)
            return (try Self.lines(list).map { InputImage(path: $0) }, [])
        }
        return try InputSource(paths: images.map(RawPath.init(argument:)), list: nil, recursive: false).all()
    }

    /// The paths of a list file, one a line, relative to the current folder as darknet opens
    /// them (blank lines and `#` comments skipped; `\r\n` accepted).
    static func lines(_ file: String) throws -> [RawPath] {
        let reader = try ListReader(RawPath(argument: file))
        var paths: [RawPath] = []
        while let path = try reader.next() { paths.append(path) }
        return paths
    }
}

/// The words of the data-set commands' shared options: the names from the `.data` file, the
/// fitting as `detect`'s, the thresholds of `detector valid`.
enum DataSetWords: DetectionWords {
    static let input = "image"
    static let namesDefault = "the .data file's names="
    static let mappingDefault = "as the cfg says, as detect"
    static let thresholdDefault = "0.001 for AlexeyAB-style cfgs, his detector valid's; 0.005 for pjreddie's"
    static let nmsDefault = "0.6 for AlexeyAB-style cfgs, his detector valid's; 0.45 for pjreddie's"
}
