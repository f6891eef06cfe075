import Foundation
import YOLO

extension ClassTree {
    /// The class tree a section's `tree=` names (`[softmax]`, `[region]`), or nil without the
    /// key. darknet opens the path as written, from the working directory; so does this, and
    /// when nothing is there, beside the cfg and in the cfg's parent folder (darknet's layout:
    /// `cfg/yolo9000.cfg` names `data/9k.tree`). A missing, oversized (`ModelLimits.maximumNamesBytes`)
    /// or malformed file is a `CfgError.dataFile` naming the key's line, the file and its line.
    static func load(_ section: CfgSection, limits: ModelLimits) throws -> ClassTree? {
        guard let option = section.option("tree") else { return nil }
        let location = section.location("tree")
        let written = option.value
        var tried = [written]
        if !written.hasPrefix("/") {
            let folder = (section.file as NSString).deletingLastPathComponent
            let cfgFolder = folder.isEmpty ? "." : folder
            tried += [(cfgFolder as NSString).appendingPathComponent(written),
                      ((cfgFolder as NSString).appendingPathComponent("..") as NSString).appendingPathComponent(written)]
                .map { ($0 as NSString).standardizingPath }
        }
        guard let path = tried.first(where: { FileManager.default.isReadableFile(atPath: $0) }) else {
            throw CfgError.dataFile(location, path: written, detail: "not found (tried \(tried.joined(separator: ", ")))")
        }
        let data: Data
        do {
            data = Data(try TextFile.read(path, limit: limits.maximumNamesBytes))
        } catch {
            switch error {
            case .unreadable(let reason): throw CfgError.dataFile(location, path: path, detail: "cannot read: \(reason)")
            case .tooLarge(let size, let limit):
                throw CfgError.dataFile(location, path: path, detail: "\(size) bytes, over the \(limit)-byte limit")
            }
        }
        if let nul = data.firstIndex(of: 0) {
            throw CfgError.dataFile(location, path: path, detail: "a NUL byte at offset \(nul - data.startIndex): not a text tree file")
        }
        do {
            return try ClassTree(parsing: String(decoding: data, as: UTF8.self))
        } catch {
            throw CfgError.dataFile(location, path: "\(path):\(error.line)", detail: error.detail)
        }
    }

    /// `load`, with the tree's class count checked against `classes` (what the section's
    /// outputs need: darknet reads past the tree's arrays, or leaves outputs unset, otherwise).
    static func load(_ section: CfgSection, classes: Int, limits: ModelLimits) throws -> ClassTree? {
        guard let tree = try load(section, limits: limits) else { return nil }
        if tree.count != classes {
            throw CfgError.invalidValue(section.location("tree"), value: section.option("tree")?.value ?? "",
                                        expected: "a tree of \(classes) classes (one line each), found \(tree.count)")
        }
        return tree
    }
}
