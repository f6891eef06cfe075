import CommandSupport
import Foundation

/// One image to process: its path, the path relative to the input folder it was found in
/// (so `--output-dir` can mirror the folder's layout; its last component otherwise), and that
/// folder (standardised).
struct InputImage: Sendable, Equatable {
    var path: RawPath
    var relativePath: RawPath
    var folder: RawPath?

    init(path: RawPath, relativePath: RawPath? = nil, folder: RawPath? = nil) {
        self.path = path
        self.relativePath = relativePath ?? (path.isStandardInput ? RawPath(bytes: Array("stdin".utf8)) : path.lastComponent)
        self.folder = folder
    }

    var display: String { path.display }
}

/// What `InputSource` hands on: an image, or an input that could not be expanded (a folder
/// that cannot be listed, a list line too long to be a path), reported with the results.
enum InputEvent: Sendable {
    case image(InputImage)
    case problem(path: String, Error)
}

/// Expands `detect`'s and `classify`'s inputs one at a time, so a run starts at once and holds
/// no list: files as given (`-` is an image on stdin), folders (their `.jpg/.jpeg/.png` files,
/// byte-wise sorted; with `recursive` their sub-folders, each folder once however symlinks
/// loop), then the lines of the list file as they arrive. A path given twice is taken once.
final class InputSource: Sequence, IteratorProtocol {
    static let imageExtensions: Set<String> = ["jpg", "jpeg", "png"]

    private var arguments: [RawPath]
    private var list: ListReader?
    private let recursive: Bool
    private var walker = FolderWalker()
    private var waiting: [InputEvent] = []
    private var seen = Set<RawPath>()
    /// Files inside folders that were skipped because their extension is not an image's.
    private(set) var skipped = 0

    /// Opens the list file (`-` = stdin) now, so a missing one is a usage error before any work.
    init(paths: [RawPath], list: RawPath?, recursive: Bool, prompt: String? = nil) throws {
        arguments = paths.reversed()
        self.recursive = recursive
        self.list = try list.map { try ListReader($0, prompt: prompt) }
    }

    func next() -> InputEvent? {
        while waiting.isEmpty {
            let path: RawPath
            if let argument = arguments.popLast() {
                path = argument
            } else {
                do {
                    guard let line = try list?.next() else { return nil }
                    path = line
                } catch let error as ListReader.Error {
                    // The over-long line is skipped; the lines after it are still read.
                    return .problem(path: "--list", error)
                } catch {
                    list = nil
                    return .problem(path: "--list", error)
                }
            }
            expand(path)
        }
        return waiting.removeFirst()
    }

    private func expand(_ path: RawPath) {
        guard !path.isStandardInput, path.isDirectory else {
            // Missing or unreadable files are attempted and fail with the reader's reason.
            if seen.insert(path).inserted { waiting.append(.image(InputImage(path: path))) }
            return
        }
        let folder = path.standardized
        var problems: [FileError] = []
        do {
            for relative in try walker.images(in: path, recursive: recursive, skipped: &skipped, problems: &problems) ?? [] {
                let full = path.appending(relative)
                if seen.insert(full).inserted {
                    waiting.append(.image(InputImage(path: full, relativePath: relative, folder: folder)))
                }
            }
        } catch {
            problems.append(error as? FileError ?? .unreadable(path, reason: "\(error)"))
        }
        for problem in problems {
            if case .notAFile(let entry, _) = problem { waiting.append(.problem(path: entry.display, problem)); continue }
            waiting.append(.problem(path: path.display, ListingError(problem)))
        }
    }

    /// Every image, for the runs that need the whole list first (`--shard`'s sorted split,
    /// `--output FILE`'s one image); problems are returned apart.
    func all() -> (images: [InputImage], problems: [InputEvent]) {
        var images: [InputImage] = [], problems: [InputEvent] = []
        while let event = next() {
            if case .image(let image) = event { images.append(image) } else { problems.append(event) }
        }
        return (images, problems)
    }
}

/// A folder (or sub-folder) that could not be listed.
struct ListingError: Error, CustomStringConvertible {
    var underlying: FileError
    init(_ underlying: FileError) { self.underlying = underlying }
    var description: String { "cannot list the folder: \(underlying)" }
}

/// A list file read a chunk at a time: one path per line (`\n` or `\r\n`; blank lines and
/// lines starting with `#` ignored), handed on as soon as its line ends.
final class ListReader {
    /// Longer lines are not paths (a binary file given as the list): refused, not buffered.
    static let maximumLine = 1 << 16

    let path: RawPath
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var ended = false
    private var lineNumber = 0

    enum Error: Swift.Error, CustomStringConvertible {
        case lineTooLong(RawPath, line: Int)
        var description: String {
            switch self {
            case .lineTooLong(let path, let line):
                return "\(path.display):\(line): longer than \(ListReader.maximumLine) bytes (not a list of paths?)"
            }
        }
    }

    /// Written to stdout before each read that waits for a line, on a terminal only.
    private let prompt: String?

    init(_ path: RawPath, prompt: String? = nil) throws {
        self.path = path
        self.prompt = path.isStandardInput && isatty(STDIN_FILENO) == 1 ? prompt : nil
        fd = path.isStandardInput ? dup(STDIN_FILENO) : path.withCString { open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw FileBytes.failure(path, errno) }
        var info = stat()
        if fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR {
            close(fd)
            throw FileError.isDirectory(path)
        }
    }

    deinit { close(fd) }

    /// The next path, nil at the end of the file.
    func next() throws -> RawPath? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                guard newline <= Self.maximumLine else {
                    // A long line that arrived whole with its newline: refused like one that did not.
                    buffer.removeFirst(newline + 1)
                    lineNumber += 1
                    throw Error.lineTooLong(path, line: lineNumber)
                }
                var line = Array(buffer[..<newline])
                buffer.removeFirst(newline + 1)
                lineNumber += 1
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                if line.isEmpty || line.first == UInt8(ascii: "#") { continue }
                return RawPath(bytes: line)
            }
            if buffer.count > Self.maximumLine {
                buffer.removeAll()
                lineNumber += 1
                try skipToNewline()
                throw Error.lineTooLong(path, line: lineNumber)
            }
            if ended {
                guard !buffer.isEmpty else { return nil }
                buffer.append(UInt8(ascii: "\n"))  // a last line without its newline
                continue
            }
            try fill()
        }
    }

    private func fill() throws {
        if let prompt, buffer.isEmpty { try? StandardOutput.write(prompt) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { throw FileBytes.failure(path, errno) }
            if count == 0 { ended = true } else { buffer += chunk.prefix(count) }
            return
        }
    }

    private func skipToNewline() throws {
        while !ended {
            try fill()
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                buffer.removeFirst(newline + 1)
                return
            }
            buffer.removeAll()
        }
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
        let sorted = images.map(\.path).sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
        var mine = Set<RawPath>()
        for (i, path) in sorted.enumerated() where i % count == index - 1 { mine.insert(path) }
        return images.filter { mine.contains($0.path) }
    }
}
