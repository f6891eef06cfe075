import Foundation

/// A darknet `.names` file: one class name per line (`coco.names`).
public enum ClassNames {
    public enum Error: Swift.Error, Equatable, CustomStringConvertible {
        case unreadable(file: String, reason: String)
        case empty(file: String)

        public var description: String {
            switch self {
            case .unreadable(let file, let reason): return "\(file): cannot read class names: \(reason)"
            case .empty(let file): return "\(file): no class names in the file"
            }
        }
    }

    public static func load(contentsOf path: String) throws -> [String] {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw Error.unreadable(file: path, reason: (error as NSError).localizedDescription)
        }
        let text = String(decoding: data, as: UTF8.self)
        var names = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map { $0.trimmingSpaces }
        while names.last == "" { names.removeLast() }
        if names.isEmpty { throw Error.empty(file: path) }
        return names
    }
}

extension Substring {
    var trimmingSpaces: String { String(self).trimmingSpaces }
}
