import Foundation

/// A darknet `.names` file: one class name per line (`coco.names`).
public enum ClassNames {
    public enum Error: Swift.Error, Equatable, CustomStringConvertible {
        case unreadable(file: String, reason: String)
        case empty(file: String)
        /// Larger than the limit (`ModelLimits.maximumNamesBytes`) (a weights file or a photo given by mistake).
        case tooLarge(file: String, bytes: Int, limit: Int)
        /// A NUL byte at `offset`: not a text file.
        case binary(file: String, offset: Int)

        public var description: String {
            switch self {
            case .unreadable(let file, let reason): return "\(file): cannot read class names: \(reason)"
            case .empty(let file): return "\(file): no class names in the file"
            case .tooLarge(let file, let bytes, let limit):
                return "\(file): \(bytes) bytes is too large for a names file (limit \(limit), ModelLimits.maximumNamesBytes)"
            case .binary(let file, let offset):
                return "\(file): not a names file (a NUL byte at offset \(offset); expected one class name per line)"
            }
        }
    }

    /// The names in the file at `path`; a file over `maximumBytes` is an error (`ModelLimits.maximumNamesBytes`).
    public static func load(contentsOf path: String, maximumBytes: Int = ModelLimits().maximumNamesBytes) throws -> [String] {
        let bytes: [UInt8]
        do {
            bytes = try TextFile.read(path, limit: maximumBytes)
        } catch {
            switch error {
            case .unreadable(let reason): throw Error.unreadable(file: path, reason: reason)
            case .tooLarge(let size, let limit): throw Error.tooLarge(file: path, bytes: size, limit: limit)
            }
        }
        let data = Data(bytes)
        return try parse(data, file: path, maximumBytes: maximumBytes)
    }

    /// The names in `data` (a names file's bytes): one per line, `\n` or `\r\n`, spaces
    /// trimmed, trailing empty lines dropped; invalid UTF-8 is replaced, a NUL byte or more than
    /// `maximumBytes` is an error.
    public static func parse(_ data: Data, file: String, maximumBytes: Int = ModelLimits().maximumNamesBytes) throws -> [String] {
        if data.count > maximumBytes { throw Error.tooLarge(file: file, bytes: data.count, limit: maximumBytes) }
        if let nul = data.firstIndex(of: 0) { throw Error.binary(file: file, offset: nul - data.startIndex) }
        let text = String(decoding: data, as: UTF8.self)
        var names = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map { $0.trimmingSpaces }
        while names.last == "" { names.removeLast() }
        if names.isEmpty { throw Error.empty(file: file) }
        return names
    }
}

extension Substring {
    var trimmingSpaces: String { String(self).trimmingSpaces }
}
