import CommandSupport
import Foundation
import Imaging
import YOLO

/// `detect --crops DIR`: each detection cut out of the original photo into its own file,
/// `DIR/NAME-CLASS-N.EXT`: NAME the image's name (its path relative to an input folder, as
/// `--output-dir`), CLASS the class name (`/`, `\` and control characters as `_`), N the
/// detection's place in the image's output (0, 1, … as the text and JSON list them), so no
/// two crops of one image share a name. EXT keeps the input's format: `.jpg` (quality 95)
/// for a JPEG, `.png` for a PNG. The rectangle is darknet's pixel box
/// (`Detection.pixelBox`, edges inclusive, clamped to the image).
enum Crops {
    static let jpegQuality = 95

    static func names(for detections: [Detection], of input: InputImage, in folder: OutputFolder,
                      names: [String], png: Bool) throws -> [RawPath] {
        try detections.enumerated().map { index, detection in
            try folder.path(for: input, suffix: "-\(fileSafe(TextReport.name(detection.classId, names)))-\(index)" + (png ? ".png" : ".jpg"))
        }
    }

    /// The crops' file bytes, in `detections`' order.
    static func encode(_ detections: [Detection], from photo: Image, png: Bool, name: String) throws -> [[UInt8]] {
        try detections.map { detection in
            let box = detection.pixelBox(imageWidth: photo.width, imageHeight: photo.height)
            let crop = photo.cropped(x: box.left, y: box.top, width: box.right - box.left + 1, height: box.bottom - box.top + 1)
            return png ? try crop.pngData(name: name) : try crop.jpegData(quality: jpegQuality, name: name)
        }
    }

    /// A class name as one file-name component.
    static func fileSafe(_ name: String) -> String {
        let safe = String(name.unicodeScalars.map { scalar -> Character in
            scalar == "/" || scalar == "\\" || scalar.value < 0x20 || scalar.value == 0x7F ? "_" : Character(scalar)
        })
        return safe.isEmpty || safe == "." || safe == ".." ? "_" : safe
    }
}
