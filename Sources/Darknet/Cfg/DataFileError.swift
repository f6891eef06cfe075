/// Everything that can be wrong with a `.data` file, each with its place.
public enum DataFileError: Error, Equatable, CustomStringConvertible {
    case unreadable(file: String, reason: String)
    case tooLarge(file: String, bytes: Int, limit: Int)
    /// A NUL byte at `offset`: not a text file (a weights file or a photo given by mistake).
    case binary(file: String, offset: Int)
    /// A value that is not what the key takes.
    case badValue(CfgLocation, value: String, expected: String)
    /// A key the command needs is not set.
    case missingKey(file: String, key: String, purpose: String)
    /// The file a key names is not there, relative to `currentFolder` as darknet opens it;
    /// `besideDataFile` is where it is relative to the `.data` file's folder, when it is there.
    case missingFile(CfgLocation, path: String, currentFolder: String, besideDataFile: String?)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason): return "\(file): cannot read the .data file: \(reason)"
        case .tooLarge(let file, let bytes, let limit):
            return "\(file): \(bytes) bytes is too large for a .data file (limit \(limit), ModelLimits.maximumNamesBytes)"
        case .binary(let file, let offset):
            return "\(file): not a .data file (a NUL byte at offset \(offset); expected key=value lines)"
        case .badValue(let location, let value, let expected): return "\(location): '\(value)' is not \(expected)"
        case .missingKey(let file, let key, let purpose): return "\(file): no '\(key)=' line, which \(purpose) needs"
        case .missingFile(let location, let path, let folder, let beside):
            var text = "\(location): \(path): no such file (darknet opens it relative to the current folder, \(folder))"
            if let beside { text += "; there is one at \(beside): run from the .data file's folder, or write that path" }
            return text
        }
    }
}
