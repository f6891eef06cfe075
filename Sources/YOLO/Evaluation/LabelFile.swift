/// One ground-truth object of a darknet label file: its class and its box, centre and size
/// relative to the image (darknet's `box_label`).
public struct LabelBox: Sendable, Hashable {
    public var classId: Int
    public var box: BoundingBox

    public init(classId: Int, box: BoundingBox) {
        self.classId = classId
        self.box = box
    }
}

/// darknet's YOLO label files (`img.txt` beside or instead of `img.jpg`): one object per line,
/// `class x_center y_center width height`, the four relative to the image — what
/// `--save-labels` writes and `detector map` reads (`read_boxes`, data.c).
public enum LabelFile {
    public enum Error: Swift.Error, Equatable, CustomStringConvertible {
        /// A line that is not five numbers (darknet's `fscanf` stops reading the file there
        /// and silently drops the rest of the objects).
        case malformed(file: String, line: Int, text: String)
        /// A class outside `0..<classes` (darknet would count it past the end of its arrays).
        case classOutOfRange(file: String, line: Int, classId: Int, classes: Int)
        /// A coordinate that is not a finite number.
        case notFinite(file: String, line: Int, text: String)

        public var description: String {
            switch self {
            case .malformed(let file, let line, let text):
                return "\(file):\(line): expected 'class x_center y_center width height', found '\(text)'"
            case .classOutOfRange(let file, let line, let classId, let classes):
                return "\(file):\(line): class \(classId) is outside the model's \(classes) classes (0...\(classes - 1))"
            case .notFinite(let file, let line, let text):
                return "\(file):\(line): a coordinate is not a finite number in '\(text)'"
            }
        }
    }

    /// The objects of a label file's text, in file order. Blank lines are skipped; numbers are
    /// separated by spaces or tabs, as `fscanf("%d %f %f %f %f")` reads them.
    public static func parse(_ text: String, file: String, classes: Int) throws(Error) -> [LabelBox] {
        var boxes: [LabelBox] = []
        var lineNumber = 0
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            let fields = rawLine.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            if fields.isEmpty { continue }
            let shown = String(rawLine.prefix(120))
            guard fields.count == 5, let classId = Int(fields[0]) else {
                throw .malformed(file: file, line: lineNumber, text: shown)
            }
            let numbers = fields[1...].compactMap { Float($0) }
            guard numbers.count == 4 else { throw .malformed(file: file, line: lineNumber, text: shown) }
            guard numbers.allSatisfy(\.isFinite) else { throw .notFinite(file: file, line: lineNumber, text: shown) }
            guard (0..<classes).contains(classId) else {
                throw .classOutOfRange(file: file, line: lineNumber, classId: classId, classes: classes)
            }
            boxes.append(LabelBox(classId: classId, box: BoundingBox(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])))
        }
        return boxes
    }

    /// The label file darknet reads for the image at `path` (`replace_image_to_label`, utils.c):
    /// COCO's `/images/train2017/`, `/images/val2017/`, `/images/train2014/`, `/images/val2014/`
    /// become `/labels/…/`, VOC's `/JPEGImages/` becomes `/labels/`, and the extension `.jpg`,
    /// `.jpeg`, `.png`, `.bmp`, `.ppm` or `.tiff` (lower or upper case) becomes `.txt`. Any
    /// other `images/` folder keeps its name: the label sits beside the image. Nil when the
    /// name has none of those extensions (darknet prints "Failed to infer label file name").
    public static func path(forImage path: String) -> String? {
        var result = path
        for (from, to) in [("/images/train2017/", "/labels/train2017/"), ("/images/val2017/", "/labels/val2017/"),
                           ("/JPEGImages/", "/labels/"),
                           ("\\images\\train2017\\", "\\labels\\train2017\\"), ("\\images\\val2017\\", "\\labels\\val2017\\"),
                           ("\\images\\train2014\\", "\\labels\\train2014\\"), ("\\images\\val2014\\", "\\labels\\val2014\\"),
                           ("/images/train2014/", "/labels/train2014/"), ("/images/val2014/", "/labels/val2014/"),
                           ("\\JPEGImages\\", "\\labels\\")] {
            if let range = result.firstRange(of: from) { result.replaceSubrange(range, with: to) }
        }
        // darknet's `trim`: spaces and tabs at both ends.
        while result.first == " " || result.first == "\t" { result.removeFirst() }
        while result.last == " " || result.last == "\t" { result.removeLast() }
        for ext in [".jpg", ".JPG", ".jpeg", ".JPEG", ".png", ".PNG", ".bmp", ".BMP", ".ppm", ".PPM", ".tiff", ".TIFF"]
        where result.hasSuffix(ext) {
            return String(result.dropLast(ext.count)) + ".txt"
        }
        return nil
    }
}
