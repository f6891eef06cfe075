import CommandSupport
import Foundation

/// Lists folders for `--recursive` without looping: each folder is entered once, known by
/// its device and inode, so symlinks to `.` or `..` add nothing.
struct FolderWalker {
    private var visited = Set<FileIdentity>()

    struct FileIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// Image files under `folder`, as paths relative to it, byte-wise sorted; hidden entries
    /// ignored; `skipped` counts the other files. Nil when `folder` was already visited.
    /// Sub-folders that cannot be listed are added to `problems`.
    mutating func images(in folder: RawPath, recursive: Bool, skipped: inout Int, problems: inout [FileError]) throws -> [RawPath]? {
        guard let info = folder.status() else { throw FileBytes.failure(folder, errno) }
        guard visited.insert(FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))).inserted else { return nil }
        var found: [RawPath] = []
        for name in try Self.entries(of: folder) where name.bytes.first != UInt8(ascii: ".") {
            let full = folder.appending(name)
            guard let entry = full.status() else { continue }  // a dangling symlink
            if entry.st_mode & S_IFMT == S_IFDIR {
                guard recursive else { continue }
                do {
                    found += try images(in: full, recursive: true, skipped: &skipped, problems: &problems)?.map { name.appending($0) } ?? []
                } catch {
                    problems.append(error as? FileError ?? .unreadable(full, reason: "\(error)"))
                }
            } else if InputSource.imageExtensions.contains(name.pathExtension) {
                found.append(name)
            } else {
                skipped += 1
            }
        }
        return found.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
    }

    /// The names in `folder` (readdir: their bytes, UTF-8 or not).
    static func entries(of folder: RawPath) throws -> [RawPath] {
        guard let directory = folder.withCString({ opendir($0) }) else { throw FileBytes.failure(folder, errno) }
        defer { closedir(directory) }
        var names: [RawPath] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name != [UInt8(ascii: ".")] && name != [UInt8(ascii: "."), UInt8(ascii: ".")] { names.append(RawPath(bytes: name)) }
        }
        return names
    }
}
