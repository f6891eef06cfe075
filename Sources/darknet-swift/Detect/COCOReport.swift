import ArgumentParser
import CommandSupport
import Foundation
import YOLO

/// COCO detection results (`[{"image_id", "category_id", "bbox": [x, y, w, h], "score"}]`),
/// the format `COCO.loadRes` and the COCO evaluation server read.
enum COCOReport {
    /// darknet's 80 classes (coco.names order) → COCO's category ids. COCO numbered 91
    /// categories when it was designed but only 80 have annotations; ids 12, 26, 29, 30, 45,
    /// 66, 68, 69, 71, 83 and 91 were left unused, so class i is not id i + 1. This is the
    /// table darknet's `validate_detector` uses (`coco_ids` in detector.c), written out here
    /// from the COCO category list: person=1 … toothbrush=90.
    static let categoryIds: [Int] = [
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 16, 17, 18, 19, 20, 21,
        22, 23, 24, 25, 27, 28, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44,
        46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65,
        67, 70, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 84, 85, 86, 87, 88, 89, 90,
    ]

    /// Above this threshold COCO results warn: COCO's evaluation ranks every box, and darknet's
    /// `detector valid` writes them above 0.001 (AlexeyAB) or 0.005 (pjreddie).
    static let thresholdWarning: Float = 0.01

    /// The COCO id of a darknet class: the table for 80-class models, the class number otherwise.
    static func categoryId(classId: Int, classCount: Int) -> Int {
        classCount == 80 && classId >= 0 && classId < 80 ? categoryIds[classId] : classId
    }

    /// One results entry; the box is darknet's (centre ± half size in pixels) clipped to the
    /// image, as `[left, top, width, height]` in pixels.
    static func entry(_ d: Detection, imageId: Int, result: ImageResult, classCount: Int) -> String {
        let w = Double(result.width), h = Double(result.height)
        let left = max(0, min(w, Double(d.box.x - d.box.width / 2) * w))
        let right = max(0, min(w, Double(d.box.x + d.box.width / 2) * w))
        let top = max(0, min(h, Double(d.box.y - d.box.height / 2) * h))
        let bottom = max(0, min(h, Double(d.box.y + d.box.height / 2) * h))
        let bbox = [left, top, right - left, bottom - top].map { JSONReport.number(double: ($0 * 100).rounded() / 100) }
        return "{\"image_id\":\(imageId),\"category_id\":\(categoryId(classId: d.classId, classCount: classCount)),"
            + "\"bbox\":[\(bbox.joined(separator: ","))],\"score\":\(JSONReport.number(d.confidence))}"
    }
}

/// COCO image ids: from `--image-ids FILE` (a COCO annotations JSON with `images[].file_name/id`,
/// or lines `<file name> <id>`), else the last run of digits in the file name
/// (`000000397133.jpg` → 397133, COCO's own naming).
struct COCOImageIds: Sendable {
    private var table: [String: Int] = [:]

    init(file: String?) throws {
        guard let file else { return }
        let data = try FileBytes.read(RawPath(argument: file))
        if data.first(where: { !$0.isWhitespace }) == UInt8(ascii: "{") {
            do {
                table = try COCOImagesScanner.images(in: data)
            } catch {
                throw CLIError.unreadable(file, String(describing: error))
            }
        } else {
            for (number, line) in String(decoding: data, as: UTF8.self).split(separator: "\n").enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
                if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
                guard let space = trimmed.lastIndex(where: { $0 == " " || $0 == "\t" }),
                      let id = Int(trimmed[trimmed.index(after: space)...]) else {
                    throw CLIError.unreadable(file, "line \(number + 1): expected `<file name> <id>`")
                }
                table[trimmed[..<space].trimmingCharacters(in: .whitespaces)] = id
            }
        }
    }

    func id(for path: String) throws -> Int {
        let name = (path as NSString).lastPathComponent
        if let id = table[path] ?? table[name] { return id }
        let stem = (name as NSString).deletingPathExtension
        let digits = stem.reversed().drop { !$0.isNumber }.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let id = Int(String(digits.reversed())) else {
            throw CLIError.unreadable(path, "no COCO image id (no digits in the file name and not in --image-ids)")
        }
        return id
    }
}

private extension UInt8 {
    var isWhitespace: Bool { self == 0x20 || self == 0x09 || self == 0x0A || self == 0x0D }
}

/// `--image-ids FILE` (`detect`, `valid`): where COCO results take their image ids. Declared here once.
struct ImageIdsOption: ParsableArguments {
    @Option(help: "COCO image ids: a COCO annotations JSON or lines `<file name> <id>`.")
    var imageIds: String?
}
