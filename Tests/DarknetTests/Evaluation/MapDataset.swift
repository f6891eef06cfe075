@testable import Darknet
import Foundation
import Imaging
import TestSupport
import XCTest

/// The labelled set of the `detector map` goldens, made by the project: each of the seven
/// fetched photos decoded by `Imaging` (libjpeg-turbo), whole and in two crops, written as PNG
/// (lossless, so AlexeyAB's stb_image and the engine read the same pixels), for each model
/// beside the label files of Fixtures/map/MODEL-labels.json, with darknet's `.data`, names,
/// `valid=` and `difficult=` lists. `tools/oracle/ab_map_goldens.py` has the same set written
/// (`MapGoldenTests.testWritesTheSetForTheOracle`) and runs AlexeyAB's darknet on it.
///
/// A model's folder (`write(_:labels:images:to:)`):
///
///     MODEL/MODEL.cfg  MODEL.weights  MODEL.names  MODEL.data
///     MODEL/valid.txt          images/NAME.png, one a line (darknet's `valid=`)
///     MODEL/difficult.txt      images/difficult_NAME.png, parallel to valid.txt (`difficult=`)
///     MODEL/images/NAME.png, NAME.txt, difficult_NAME.txt
///
/// The PNGs are encoded once into `png/` beside the models' folders and hard-linked into each
/// (a `root` whose `png/` holds other images must be emptied first).
///
/// As in AlexeyAB's VOC lists (scripts/voc_label_difficult.py), a `difficult=` path names no
/// image: darknet reads only its label file (`replace_image_to_label`, then `read_boxes`).
/// Every path is absolute: darknet opens them relative to its working folder.
struct MapDataset {
    static let photos = ["dog", "eagle", "giraffe", "horses", "kite", "person", "scream"]

    struct Entry {
        var name: String
        var image: Image
    }

    /// A model of the goldens: its cfg text, its weights file and its class names.
    struct Model {
        var name: String
        var cfg: String
        var weights: URL
        var names: [String]
        /// Synthetic weights' FNV-1a 64, or nil for fetched ones.
        var syntheticChecksum: String?
    }

    /// The photos whole, then crop `a` (3/5 × 2/3 of the photo, from (w/10, h/6)) and crop `b`
    /// (a tall third, 1/3 × 7/8, from (9w/20, h/8)): 21 images of 18 sizes and three shapes;
    /// last, `horses-copy`, the same pixels as `horses` with labels of its own: each of its
    /// detections ties with one of the original's, so the ranking's order of equal
    /// probabilities (`qsort`'s) decides some ranks.
    static func images(file: StaticString = #filePath, line: UInt = #line) throws -> [Entry] {
        var entries: [Entry] = []
        for photo in photos {
            let image = try Image(contentsOf: TestData.path("data/\(photo).jpg", file: file, line: line))
            let (w, h) = (image.width, image.height)
            entries.append(Entry(name: photo, image: image))
            entries.append(Entry(name: "\(photo)-a", image: image.cropped(x: w / 10, y: h / 6, width: w * 3 / 5, height: h * 2 / 3)))
            entries.append(Entry(name: "\(photo)-b", image: image.cropped(x: w * 9 / 20, y: h / 8, width: w / 3, height: h * 7 / 8)))
        }
        if let horses = entries.first(where: { $0.name == "horses" }) {
            entries.append(Entry(name: "horses-copy", image: horses.image))
        }
        return entries
    }

    /// FNV-1a 64 of an image's samples as bytes (`round(255·v)`), what the goldens record of
    /// each image: a different photo or JPEG decoder shows here first.
    static func pixelChecksum(_ image: Image) -> String {
        let bytes = image.data.map { UInt8((max(0, min(1, $0)) * 255).rounded()) }
        return String(format: "%016llx", SyntheticWeights.fnv1a64(bytes))
    }

    /// The goldens' models, in the order the oracle runs them.
    static let modelNames = ["yolov3-tiny-letterbox", "v4-tiny", "v7-tiny"]

    /// One of `modelNames`: pjreddie's yolov3-tiny (fetched cfg and weights) with
    /// `letter_box=1` added to `[net]` (so AlexeyAB's darknet letterboxes it, and the engine
    /// reads it in his dialect), or the project's yolov4-tiny- and yolov7-tiny-shaped cfgs
    /// (Fixtures/map, 3 and 4 classes) on synthetic weights (seed 1), written into `folder`.
    static func model(_ name: String, in folder: URL, file: StaticString = #filePath, line: UInt = #line) throws -> Model {
        if name == "yolov3-tiny-letterbox" {
            let fetched = try String(contentsOfFile: TestData.cfg("yolov3-tiny", file: file, line: line), encoding: .utf8)
            guard let net = fetched.range(of: "[net]\n") else {
                throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "cfg/yolov3-tiny.cfg has no '[net]' line"])
            }
            var cfg = fetched
            cfg.insert(contentsOf: "letter_box=1\n", at: net.upperBound)
            let coco = try String(contentsOfFile: TestData.path("data/coco.names", file: file, line: line), encoding: .utf8)
                .split(separator: "\n").map(String.init)
            return Model(name: name, cfg: cfg, weights: URL(fileURLWithPath: try TestData.path("yolov3-tiny.weights", file: file, line: line)),
                         names: coco, syntheticChecksum: nil)
        }
        let classes = name == "v4-tiny" ? 3 : 4
        let cfg = try String(contentsOf: TestData.fixture("map/\(name).cfg", file: file, line: line), encoding: .utf8)
        let bytes = SyntheticWeights.bytes(for: try ModelDescription(text: cfg, file: "\(name).cfg"), seed: 1)
        let weights = folder.appendingPathComponent("\(name).weights")
        try Data(bytes).write(to: weights)
        return Model(name: name, cfg: cfg, weights: weights, names: (0..<classes).map { "class\($0)" },
                     syntheticChecksum: String(format: "%016llx", SyntheticWeights.fnv1a64(bytes)))
    }

    /// The label files' lines of one model (Fixtures/map/MODEL-labels.json: lines as darknet's
    /// label files hold them, `class x_center y_center width height`).
    struct Labels: Decodable {
        struct Image: Decodable {
            var name: String
            var truth: [String]
            var difficult: [String]
        }
        var model: String
        var images: [Image]
    }

    /// Writes `model`'s folder in `root` (layout above) and returns its `.data` file's path;
    /// without `labels`, the images and lists only (what the oracle derives labels from).
    @discardableResult
    static func write(_ model: Model, labels: Labels?, images: [Entry], to root: URL) throws -> String {
        let folder = root.appendingPathComponent(model.name)
        let imageFolder = folder.appendingPathComponent("images")
        try FileManager.default.createDirectory(at: imageFolder, withIntermediateDirectories: true)
        func write(_ text: String, _ url: URL) throws { try Data(text.utf8).write(to: url) }
        let byName = Dictionary((labels?.images ?? []).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let encoded = root.appendingPathComponent("png")
        try FileManager.default.createDirectory(at: encoded, withIntermediateDirectories: true)
        var valid = "", difficult = ""
        for entry in images {
            let png = imageFolder.appendingPathComponent("\(entry.name).png")
            let shared = encoded.appendingPathComponent("\(entry.name).png")
            if !FileManager.default.fileExists(atPath: shared.path) { try entry.image.write(to: shared.path) }
            try? FileManager.default.removeItem(at: png)
            try FileManager.default.linkItem(at: shared, to: png)
            valid += png.path + "\n"
            difficult += imageFolder.appendingPathComponent("difficult_\(entry.name).png").path + "\n"
            guard let labels else { continue }
            guard let objects = byName[entry.name] else {
                throw CocoaError(.fileReadNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "\(labels.model)-labels.json has no \(entry.name)"])
            }
            try write(objects.truth.map { $0 + "\n" }.joined(), imageFolder.appendingPathComponent("\(entry.name).txt"))
            try write(objects.difficult.map { $0 + "\n" }.joined(), imageFolder.appendingPathComponent("difficult_\(entry.name).txt"))
        }
        let paths = ["cfg", "names", "data", "weights"].map { folder.appendingPathComponent("\(model.name).\($0)") }
        try write(model.cfg, paths[0])
        try write(model.names.map { $0 + "\n" }.joined(), paths[1])
        if model.weights.path != paths[3].path {
            try? FileManager.default.removeItem(at: paths[3])
            try FileManager.default.createSymbolicLink(at: paths[3], withDestinationURL: model.weights)
        }
        try write(valid, folder.appendingPathComponent("valid.txt"))
        try write(difficult, folder.appendingPathComponent("difficult.txt"))
        try write("""
            classes=\(model.names.count)
            valid=\(folder.appendingPathComponent("valid.txt").path)
            difficult=\(folder.appendingPathComponent("difficult.txt").path)
            names=\(paths[1].path)

            """, paths[2])
        return paths[2].path
    }
}
