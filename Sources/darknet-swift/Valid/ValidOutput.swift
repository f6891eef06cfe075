import CommandSupport
import Darknet
import Foundation
import YOLO

/// `valid`'s results files, formatted as darknet's `validate_detector` (detector.c) prints
/// them: `print_cocos` for `eval=coco`, `print_detector_detections` (VOC's comp4 files)
/// otherwise. A box is darknet's `detection` after NMS: each of its class probabilities that
/// is not zero is one line or entry.
struct ValidOutput: CustomStringConvertible {
    enum Kind {
        case coco
        case voc
    }

    enum Error: Swift.Error, CustomStringConvertible {
        case unsupportedEval(CfgLocation, value: String)

        var description: String {
            switch self {
            case .unsupportedEval(let location, let value):
                return "\(location): eval=\(value) is not supported (coco writes COCO results; without eval=, VOC's comp4 files)"
            }
        }
    }

    let kind: Kind
    let names: [String]
    let classCount: Int
    let imageIds: COCOImageIds
    /// `coco`: one file; `voc`: one per class.
    private var files: [ResultFile]
    private var entries = 0

    init(kind: Kind, folder: String, name: String?, names: [String], classCount: Int, imageIds: COCOImageIds,
         force: Bool, inputs: [RawPath]) throws {
        self.kind = kind
        self.names = names
        self.classCount = classCount
        self.imageIds = imageIds
        let base = (folder.hasSuffix("/") || folder.isEmpty ? folder : folder + "/")
        switch kind {
        case .coco:
            files = [try ResultFile(base + (name ?? "coco_results") + ".json", force: force, inputs: inputs)]
            try files[0].write("[\n")
        case .voc:
            files = []
            do {
                for classId in 0..<classCount {
                    files.append(try ResultFile(base + (name ?? "comp4_det_test_") + TextReport.name(classId, names) + ".txt",
                                                force: force, inputs: inputs))
                }
            } catch {
                for file in files { file.abandon() }
                throw error
            }
        }
    }

    /// One image's candidates (boxes relative to the image of `width` × `height`).
    mutating func write(_ candidates: [Candidate], path: RawPath, width: Int, height: Int) throws {
        let w = Float(width), h = Float(height)
        switch kind {
        case .coco:
            let id = try imageIds.id(for: path.display)
            var text = ""
            for candidate in candidates {
                // get_network_boxes(relative = 0): the box in pixels, in float.
                let (x, y, bw, bh) = (candidate.box.x * w, candidate.box.y * h, candidate.box.width * w, candidate.box.height * h)
                let xmin = max(0, Float(Double(x) - Double(bw) / 2)), ymin = max(0, Float(Double(y) - Double(bh) / 2))
                let xmax = min(w, Float(Double(x) + Double(bw) / 2)), ymax = min(h, Float(Double(y) + Double(bh) / 2))
                for (classId, probability) in candidate.probabilities.enumerated() where probability > 0 {
                    text += (entries == 0 ? "" : ",\n") + String(format: "{\"image_id\":%d, \"category_id\":%d, \"bbox\":[%f, %f, %f, %f], \"score\":%f}",
                        id, COCOReport.categoryId(classId: classId, classCount: classCount),
                        Double(xmin), Double(ymin), Double(xmax - xmin), Double(ymax - ymin), Double(probability))
                    entries += 1
                }
            }
            try files[0].write(text)
        case .voc:
            let id = Self.basecfg(path.display)
            var lines = [String](repeating: "", count: classCount)
            for candidate in candidates {
                let (x, y, bw, bh) = (candidate.box.x * w, candidate.box.y * h, candidate.box.width * w, candidate.box.height * h)
                let xmin = max(1, Float(Double(x) - Double(bw) / 2 + 1)), ymin = max(1, Float(Double(y) - Double(bh) / 2 + 1))
                let xmax = min(w, Float(Double(x) + Double(bw) / 2 + 1)), ymax = min(h, Float(Double(y) + Double(bh) / 2 + 1))
                for (classId, probability) in candidate.probabilities.enumerated() where probability != 0 && classId < classCount {
                    lines[classId] += id + String(format: " %f %f %f %f %f\n", Double(probability), Double(xmin), Double(ymin),
                                                  Double(xmax), Double(ymax))
                }
            }
            for (file, text) in zip(files, lines) where !text.isEmpty { try file.write(text) }
        }
    }

    /// Closes the COCO array (`[\n]\n` without entries, where his file lost its `[`) and
    /// renames every file into place.
    mutating func finish() throws {
        if kind == .coco { try files[0].write(entries == 0 ? "]\n" : "\n]\n") }
        for file in files { try file.finish() }
    }

    /// A run that stopped: the previous files stay as they were.
    func abandon() { for file in files { file.abandon() } }

    var description: String {
        files.count == 1 ? files[0].target.display : "\(files.count) files \(files.first.map { $0.target.folder.display } ?? "")/…"
    }

    /// darknet's `basecfg`: the file name without its folder, cut at its first dot.
    static func basecfg(_ path: String) -> String {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        return String(name.prefix { $0 != "." })
    }
}

extension ValidOutput.Kind {
    /// The `.data` file's `eval=`: `coco`, else VOC's files (darknet's default `voc`); his
    /// `imagenet`, `kitti` and `bdd` outputs are refused.
    init(_ data: DataFile) throws {
        guard let entry = data.entry("eval") else {
            self = .voc
            return
        }
        switch entry.value {
        case "coco": self = .coco
        case "voc": self = .voc
        default: throw ValidOutput.Error.unsupportedEval(data.location(entry), value: entry.value)
        }
    }
}
