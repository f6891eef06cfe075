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

    /// Every image, in order (a list read as darknet's `get_paths` reads it, relative to the
    /// current folder), and the inputs that could not be listed; `purpose` names the command
    /// in the error for a `.data` file without `valid=`.
    func inputs(_ dataFile: DataFile, for purpose: String) throws -> (images: [InputImage], problems: [InputEvent]) {
        let list = try valid ?? (images.isEmpty ? dataFile.existingPath("valid", for: purpose) : nil)
        return try InputSource(paths: images.map(RawPath.init(argument:)), list: list.map(RawPath.init(argument:)),
                               recursive: false).all()
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
