import Darknet
import Foundation

/// `--names FILE`, else coco.names beside the weights or cfg (or in a `data/` folder next to
/// them) for 80-class models, else the class numbers.
func loadClassNames(_ names: String?, weights: String, cfg: String, classes: Int) throws -> [String] {
    if let names {
        return try ClassNames.load(contentsOf: names)
    }
    let candidates = [weights, cfg].flatMap { file -> [String] in
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent()
        return [folder.appendingPathComponent("coco.names").path,
                folder.appendingPathComponent("data/coco.names").path,
                folder.deletingLastPathComponent().appendingPathComponent("data/coco.names").path]
    }
    if classes == 80, let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) {
        return try ClassNames.load(contentsOf: found)
    }
    return (0..<classes).map(String.init)
}
