import Foundation

/// One image to process: its path and, for images found in a folder, the path relative to
/// that folder (so `--output-dir` can mirror the folder's layout).
struct InputImage: Sendable, Equatable {
    var path: String
    var relativePath: String
}

/// Expands `detect`'s inputs: files as given, folders (their `.jpg/.jpeg/.png` files, sorted;
/// with `recursive` their sub-folders too), and list files (one path per line, `-` = stdin).
struct DetectInputs {
    static let imageExtensions: Set<String> = ["jpg", "jpeg", "png"]

    var images: [InputImage] = []
    /// Folders given as inputs (standardised), so `--output-dir` can refuse to write into one.
    var folders: [String] = []
    /// Files inside folders that were skipped because their extension is not an image's.
    var skipped = 0
    /// Inputs that do not exist or cannot be listed: (path, reason).
    var missing: [(path: String, reason: String)] = []

    init(paths: [String], list: String?, recursive: Bool) throws {
        var given = paths
        if let list { given += try Self.readList(list) }
        var seen = Set<String>()
        for path in given {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                folders.append(URL(fileURLWithPath: path).standardizedFileURL.path)
                for relative in listFolder(path, recursive: recursive) {
                    let full = (path as NSString).appendingPathComponent(relative)
                    if seen.insert(full).inserted { images.append(InputImage(path: full, relativePath: relative)) }
                }
            } else if seen.insert(path).inserted {
                // Missing or unreadable files are attempted and fail with the decoder's reason.
                images.append(InputImage(path: path, relativePath: (path as NSString).lastPathComponent))
            }
        }
    }

    /// Reads a list file: one path per line, blank lines and lines starting with `#` ignored.
    static func readList(_ list: String) throws -> [String] {
        let data: Data
        if list == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            do { data = try Data(contentsOf: URL(fileURLWithPath: list)) } catch {
                throw CLIError.unreadable(list, "cannot read the list file")
            }
        }
        return String(decoding: data, as: UTF8.self).split(omittingEmptySubsequences: true) { $0 == "\n" || $0 == "\r\n" }
            .map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    /// Image files under `folder` (relative paths, byte-wise sorted); hidden entries are ignored.
    private mutating func listFolder(_ folder: String, recursive: Bool) -> [String] {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: folder) } catch {
            missing.append((folder, "cannot list the folder"))
            return []
        }
        var found: [String] = []
        for name in names where !name.hasPrefix(".") {
            let full = (folder as NSString).appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                if recursive { found += listFolder(full, recursive: true).map { (name as NSString).appendingPathComponent($0) } }
            } else if Self.imageExtensions.contains((name as NSString).pathExtension.lowercased()) {
                found.append(name)
            } else {
                skipped += 1
            }
        }
        return found.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }
}

/// `--shard K/N`: image i of the byte-wise sorted input list belongs to shard K when
/// `i mod N == K − 1` (K counts from 1). Every machine that sees the same inputs computes the
/// same split, the N shards are disjoint and together cover every input, and their sizes
/// differ by at most one.
struct Shard: Equatable, CustomStringConvertible {
    var index: Int
    var count: Int

    init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, k >= 1, k <= n else { return nil }
        index = k
        count = n
    }

    var description: String { "\(index)/\(count)" }

    /// The images of this shard, in their original order.
    func select(_ images: [InputImage]) -> [InputImage] {
        let sorted = images.map(\.path).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        var mine = Set<String>()
        for (i, path) in sorted.enumerated() where i % count == index - 1 { mine.insert(path) }
        return images.filter { mine.contains($0.path) }
    }
}

/// Errors of the CLI's own (not the engine's), one line each.
enum CLIError: Error, CustomStringConvertible {
    case unreadable(String, String)
    case usage(String)

    var description: String {
        switch self {
        case .unreadable(let path, let reason): return "\(path): \(reason)"
        case .usage(let message): return message
        }
    }
}

