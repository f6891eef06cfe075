import Foundation

/// The fetched models and photos the end-to-end suites read, laid out as `tools/fetch`
/// leaves them: `cfg/<name>.cfg`, `data/<photo>.jpg`, `yolov3-tiny.weights`.
///
/// The folder is `$DARKNET_SWIFT_DATA` when set, else the repository's `weights/` (found from
/// this source file's path, so it does not depend on the working directory).
public enum DataFiles {
    public static var directory: String {
        if let value = ProcessInfo.processInfo.environment["DARKNET_SWIFT_DATA"], !value.isEmpty {
            return value
        }
        // <root>/Benchmarks/Sources/BenchmarkSupport/DataFiles.swift → <root>/weights
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("weights").path
    }

    /// `directory/relative`.
    public static func path(_ relative: String) -> String {
        (directory as NSString).appendingPathComponent(relative)
    }

    /// `directory/relative` if that file exists, else nil.
    public static func optional(_ relative: String) -> String? {
        let full = path(relative)
        return FileManager.default.fileExists(atPath: full) ? full : nil
    }

    /// `directory/relative`, or `MissingDataFile` telling how to fetch it.
    public static func required(_ relative: String) throws(MissingDataFile) -> String {
        guard let full = optional(relative) else { throw MissingDataFile(path: path(relative)) }
        return full
    }
}

/// A fetched file a suite needs is not there.
public struct MissingDataFile: Error, CustomStringConvertible {
    public var path: String

    public var description: String {
        "\(path) not found: run tools/fetch at the repository root, "
            + "or set DARKNET_SWIFT_DATA to a folder holding cfg/ and data/ as tools/fetch lays them out"
    }
}
