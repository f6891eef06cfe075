import Darknet
import Foundation

/// What a names file whose line count is not the model's class count is: a warning (names
/// missing print as class numbers, extra names are never used: darknet's `detector test`
/// prints its "Error: … number of names" and goes on) or an error (his `detector map` and
/// `classifier predict` stop there).
package enum NamesCountRule: Sendable {
    case warn
    case refuse
}

/// A names file or `.data` file that does not fit the model, under `NamesCountRule.refuse`.
package enum ClassNamesError: Error, CustomStringConvertible {
    case namesCount(file: String, names: Int, classes: Int)
    case classesKey(CfgLocation, value: Int, classes: Int)

    package var description: String {
        switch self {
        case .namesCount(let file, let names, let classes):
            return "\(file) has \(names) names but the model has \(classes) classes"
        case .classesKey(let location, let value, let classes):
            return "\(location): classes=\(value) but the model has \(classes) classes"
        }
    }
}

/// `--names FILE`, else the `.data` file's `names=` (`data`), else coco.names beside one of
/// `files` (the weights, the cfg; or in a `data/` folder next to them) for 80-class models,
/// else the class numbers, with a warning naming where it looked (a class number printed as
/// a name is a wrong answer unless the user knows). `data`'s `classes=` is checked against
/// the model under `rule`; so is the names file's line count.
func loadClassNames(_ names: String?, data: DataFile?, beside files: [String], classes: Int,
                    rule: NamesCountRule = .warn) throws -> [String] {
    if let data, let declared = data.classes, declared != classes, let entry = data.entry("classes") {
        let error = ClassNamesError.classesKey(data.location(entry), value: declared, classes: classes)
        if rule == .refuse { throw error }
        warn("warning: \(error)")
    }
    if let names { return try readClassNames(names, classes: classes, rule: rule) }
    if let data { return try readClassNames(data.existingPath("names", for: "the class names"), classes: classes, rule: rule) }
    let candidates = files.flatMap { file -> [String] in
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent()
        return [folder.appendingPathComponent("coco.names").path,
                folder.appendingPathComponent("data/coco.names").path,
                folder.deletingLastPathComponent().appendingPathComponent("data/coco.names").path]
    }
    if classes == 80 {
        if let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) {
            return try readClassNames(found, classes: classes, rule: rule)
        }
        var unique: [String] = []
        for candidate in candidates where !unique.contains(candidate) { unique.append(candidate) }
        warn("warning: an 80-class model without --names or --data, and no coco.names at \(unique.joined(separator: ", ")): "
             + "classes print as numbers")
    } else if classes > 0 {
        warn("warning: a \(classes)-class model without --names or --data: classes print as numbers")
    }
    return (0..<classes).map(String.init)
}

/// The names in `file` (a pipe or FIFO too), with the count checked under `rule`: exactly
/// `classes` names, padded with class numbers or cut.
func readClassNames(_ file: String, classes: Int, rule: NamesCountRule = .warn) throws -> [String] {
    let path = RawPath(argument: file)
    var names = try ClassNames.parse(Data(FileBytes.read(path, limit: ModelLimits().maximumNamesBytes)), file: path.display)
    if names.count != classes {
        let error = ClassNamesError.namesCount(file: path.display, names: names.count, classes: classes)
        if rule == .refuse { throw error }
        warn("warning: \(error)")
    }
    while names.count < classes { names.append(String(names.count)) }
    return Array(names.prefix(classes))
}
