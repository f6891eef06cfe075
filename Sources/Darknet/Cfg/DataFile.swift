import Foundation

/// A darknet `.data` file (`obj.data`, `coco.data`): which classes a model has, where its
/// names, image lists and outputs are.
///
/// Read as darknet's `read_data_cfg` reads it: every whitespace character of a line is removed
/// (`strip`), then empty lines and lines starting with `#` or `;` are skipped, and the rest is
/// `key=value`, split at the first `=`. Where darknet prints "Config file error" and goes on
/// (a line without a value), or silently ignores (an unknown key, a repeated key, of which
/// `option_find` uses the first), this is a warning naming the line. A `classes` that is not a
/// whole number, which darknet's `atoi` reads as 0, is an error.
///
/// Paths are kept as written. darknet opens them relative to the current folder, not the
/// `.data` file's: `path(_:)` does the same, and `DataFileError.missingFile` says where else
/// the file is when it is not found there.
public struct DataFile: Sendable, Equatable {
    /// One `key=value` line.
    public struct Entry: Sendable, Hashable {
        public var key: String
        public var value: String
        /// 1-based line number.
        public var line: Int
    }

    /// The keys darknet's commands read from a `.data` file: `classes`, `names` and the image
    /// lists (`train`, `valid`, `test`, `difficult`: one image path per line), `backup` (the
    /// training output folder), `eval` (`coco`, `imagenet`, `kitti`…: `detector valid`'s output
    /// kind), `results` (its output folder), `labels`, `top` and `map` (pjreddie's classifier
    /// and COCO id files).
    public static let keys: Set<String> = ["classes", "names", "train", "valid", "test", "difficult", "backup", "eval",
                                           "results", "labels", "top", "map"]

    /// The file as named on the command line.
    public var file: String
    /// The first entry of each key, in file order.
    public var entries: [Entry]
    /// Lines darknet skips or ignores, each with its place.
    public var warnings: [CfgWarning]

    /// Reads the file at `path`; a file over `maximumBytes` (`ModelLimits.maximumNamesBytes`) is an error.
    public init(contentsOf path: String, maximumBytes: Int = ModelLimits().maximumNamesBytes) throws(DataFileError) {
        let bytes: [UInt8]
        do {
            bytes = try TextFile.read(path, limit: maximumBytes)
        } catch {
            switch error {
            case .unreadable(let reason): throw .unreadable(file: path, reason: reason)
            case .tooLarge(let size, let limit): throw .tooLarge(file: path, bytes: size, limit: limit)
            }
        }
        try self.init(bytes: bytes, file: path)
    }

    /// Parses a `.data` file's bytes; `file` names it in errors and warnings.
    public init(bytes: [UInt8], file: String) throws(DataFileError) {
        if let nul = bytes.firstIndex(of: 0) { throw .binary(file: file, offset: nul) }
        self.file = file
        entries = []
        warnings = []
        let text = String(decoding: bytes, as: UTF8.self)
        var lineNumber = 0
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            let line = String(rawLine.filter { !$0.isWhitespace })
            guard let first = line.first, first != "#", first != ";" else { continue }
            let place = CfgLocation(file: file, line: lineNumber)
            guard let equals = line.firstIndex(of: "="), equals != line.startIndex,
                  line.index(after: equals) != line.endIndex else {
                warnings.append(CfgWarning(location: place, message: "ignored: expected key=value, found '\(line.prefix(80))' (darknet skips it too)"))
                continue
            }
            let key = String(line[..<equals])
            let value = String(line[line.index(after: equals)...])
            var location = place
            location.key = key
            if let earlier = entries.first(where: { $0.key == key }) {
                warnings.append(CfgWarning(location: location, message: "repeated key: darknet uses the first, at line \(earlier.line)"))
                continue
            }
            if !Self.keys.contains(key) {
                warnings.append(CfgWarning(location: location, message: "unknown key: no darknet command reads it (known: \(Self.keys.sorted().joined(separator: ", ")))"))
            }
            entries.append(Entry(key: key, value: value, line: lineNumber))
        }
        if let classes = entry("classes"), Int(classes.value).map({ $0 <= 0 }) ?? true {
            throw .badValue(location(classes), value: classes.value, expected: "a whole number of classes above 0")
        }
        if let top = entry("top"), Int(top.value).map({ $0 <= 0 }) ?? true {
            throw .badValue(location(top), value: top.value, expected: "a whole number above 0")
        }
    }

    /// The entry of `key`, if the file sets it.
    public func entry(_ key: String) -> Entry? { entries.first { $0.key == key } }

    /// The value of `key`, as written (spaces removed), if the file sets it.
    public func value(_ key: String) -> String? { entry(key)?.value }

    /// `classes=`.
    public var classes: Int? { value("classes").flatMap { Int($0) } }

    /// Where `entry` is: the file, its line and its key.
    public func location(_ entry: Entry) -> CfgLocation { CfgLocation(file: file, line: entry.line, key: entry.key) }

    /// The path `key` names, opened as darknet opens it (relative to the current folder);
    /// nil when the file does not set `key`.
    public func path(_ key: String) -> String? { value(key) }

    /// The path `key` names when a file is there, else `DataFileError.missingFile` (with the
    /// place where it would be relative to this `.data` file's folder, when it is there instead);
    /// `DataFileError.missingKey` when the file does not set `key`.
    public func existingPath(_ key: String, for purpose: String) throws(DataFileError) -> String {
        guard let entry = entry(key) else { throw .missingKey(file: file, key: key, purpose: purpose) }
        if FileManager.default.fileExists(atPath: entry.value) { return entry.value }
        var besideData: String?
        if !entry.value.hasPrefix("/") {
            let folder = (file as NSString).deletingLastPathComponent
            let candidate = ((folder.isEmpty ? "." : folder) as NSString).appendingPathComponent(entry.value)
            if FileManager.default.fileExists(atPath: candidate) { besideData = candidate }
        }
        throw .missingFile(location(entry), path: entry.value, currentFolder: FileManager.default.currentDirectoryPath,
                           besideDataFile: besideData)
    }
}
