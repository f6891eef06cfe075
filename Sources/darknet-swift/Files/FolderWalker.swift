import CommandSupport
import Foundation

/// Lists folders for `--recursive` without looping: each folder is entered once, known by
/// its device and inode, so symlinks to `.` or `..` add nothing. Entries are walked in
/// byte order, so a folder reached by two paths (a symlinked folder) is listed under the
/// first in that order on every machine, whatever order `readdir` gives.
///
/// Only regular files are images: an entry with an image's name that is a FIFO, a device or
/// a socket (reading a FIFO would wait forever) or a symlink to nothing is a problem of the
/// run, named with what it is; other names are counted as skipped.
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
        let names = try Self.entries(of: folder).sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
        for name in names where name.bytes.first != UInt8(ascii: ".") {
            let full = folder.appending(name)
            let imageName = InputSource.imageExtensions.contains(name.pathExtension)
            guard let entry = full.status() else {
                if imageName { problems.append(.notAFile(full, what: "a symbolic link to nothing")) } else { skipped += 1 }
                continue
            }
            if entry.st_mode & S_IFMT == S_IFDIR {
                guard recursive else { continue }
                do {
                    found += try images(in: full, recursive: true, skipped: &skipped, problems: &problems)?.map { name.appending($0) } ?? []
                } catch {
                    problems.append(error as? FileError ?? .unreadable(full, reason: "\(error)"))
                }
            } else if imageName {
                guard entry.st_mode & S_IFMT == S_IFREG else {
                    problems.append(.notAFile(full, what: "\(OutputFile.kind(entry.st_mode)), not a regular file"))
                    continue
                }
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
