import Darknet
import Foundation

/// `--names FILE`, else coco.names beside one of `files` (the weights, the cfg; or in a
/// `data/` folder next to them) for 80-class models, else the class numbers. A names file
/// whose line count is not the model's class count is a warning (the same rule in `detect`,
/// `stream` and `classify`): extra names are never used, missing ones print as class numbers.
func loadClassNames(_ names: String?, beside files: [String], classes: Int) throws -> [String] {
    if let names { return try readClassNames(names, classes: classes) }
    let candidates = files.flatMap { file -> [String] in
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent()
        return [folder.appendingPathComponent("coco.names").path,
                folder.appendingPathComponent("data/coco.names").path,
                folder.deletingLastPathComponent().appendingPathComponent("data/coco.names").path]
    }
    if classes == 80, let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) {
        return try readClassNames(found, classes: classes)
    }
    return (0..<classes).map(String.init)
}

/// The names in `file` (a pipe or FIFO too), with the count warning: exactly `classes` names,
/// padded with class numbers or cut.
func readClassNames(_ file: String, classes: Int) throws -> [String] {
    let path = RawPath(argument: file)
    var names = try ClassNames.parse(Data(FileBytes.read(path, limit: ModelLimits().maximumNamesBytes)), file: path.display)
    if names.count != classes {
        warn("warning: \(path.display) has \(names.count) names but the model has \(classes) classes")
    }
    while names.count < classes { names.append(String(names.count)) }
    return Array(names.prefix(classes))
}
