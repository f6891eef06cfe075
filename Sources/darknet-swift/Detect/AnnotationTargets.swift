import CommandSupport
import Foundation

/// Where annotated images go (`--output`, `--output-dir`), and the rules that keep them from
/// destroying anything:
/// - `--output FILE` (no trailing slash, not an existing folder) takes exactly one image;
/// - `--output DIR/` (a trailing slash, or an existing folder) writes `NAME-detections.EXT`;
/// - `--output-dir DIR` keeps the inputs' names (images found in a folder keep their path
///   relative to it) and refuses a DIR that is an input folder unless `--force`;
/// - an input image is never overwritten, even with `--force`; an existing file only with
///   `--force`; and two inputs of the same name never write the same file in one run.
final class AnnotationTargets: @unchecked Sendable {
    enum Error: Swift.Error, CustomStringConvertible {
        case exists(String)
        /// An annotated image: a rerun can skip its image instead.
        case annotatedExists(String)
        case isInput(String)
        case isInputFolder(String)
        case needsFolder(String)
        case badExtension(String)
        case writtenInThisRun(target: String, first: String)

        var description: String {
            switch self {
            case .exists(let path): return "\(path) already exists (use --force to overwrite it)"
            case .annotatedExists(let path):
                return "\(path) already exists (use --force to overwrite it, or --skip-existing to skip the images done)"
            case .isInput(let path): return "\(path) is an input image; refusing to overwrite it"
            case .isInputFolder(let path): return "--output-dir \(path) is an input folder (use --force to write there anyway)"
            case .needsFolder(let path): return "several images given: --output \(path) names a file (end it with / for a folder)"
            case .badExtension(let path): return "\(path): the output must end in .png, .jpg or .jpeg"
            case .writtenInThisRun(let target, let first):
                return "\(target) was written for \(first) in this run (two inputs with the same name)"
            }
        }
    }

    enum Naming {
        /// `--output FILE`.
        case file(RawPath)
        /// `--output DIR/`: `NAME-detections.EXT` in the folder.
        case suffixed(RawPath)
        /// `--output-dir DIR`: the input's relative path under the folder.
        case mirrored(RawPath)
    }

    let naming: Naming
    let force: Bool
    /// Every input (standardised) when the run knows them all first; the others are safe
    /// because, without `--force`, an existing file is never replaced.
    private let inputs: Set<RawPath>
    private let lock = NSLock()
    private var written: [RawPath: String] = [:]

    /// `--output PATH`: a folder when it ends in `/` or is one, else a file for one image
    /// (`single`: the run has exactly one input, nil when not known yet).
    init(output: String, single: Bool?, inputs: [InputImage], force: Bool) throws {
        let path = RawPath(argument: output)
        self.force = force
        self.inputs = Set(inputs.map { $0.path.standardized })
        if output.hasSuffix("/") || path.isDirectory {
            naming = .suffixed(path)
            try Self.createFolder(path)
            return
        }
        naming = .file(path)
        guard ["png", "jpg", "jpeg"].contains(path.pathExtension) else { throw Error.badExtension(path.display) }
        guard single == true else { throw Error.needsFolder(path.display) }
        if self.inputs.contains(path.standardized) { throw Error.isInput(path.display) }
        try OutputFile.check(path, replacing: true, inputs: [])
        if !force && path.exists { throw Error.annotatedExists(path.display) }
    }

    /// `--output-dir DIR`; `folders` are the input folders given on the command line.
    init(outputDirectory: String, folders: [RawPath], inputs: [InputImage], force: Bool) throws {
        let root = RawPath(argument: outputDirectory)
        naming = .mirrored(root)
        self.force = force
        self.inputs = Set(inputs.map { $0.path.standardized })
        if !force && folders.contains(root.standardized) { throw Error.isInputFolder(root.display) }
        try Self.createFolder(root)
    }

    /// Where `input`'s annotated image goes (nothing is checked or created).
    func path(for input: InputImage) -> RawPath {
        switch naming {
        case .file(let path):
            return path
        case .suffixed(let folder):
            // The extension keeps its case (`a.JPG` → `a-detections.JPG`); others become .png.
            let name = input.relativePath.lastComponent
            let stem = name.deletingExtension
            let ext = ["png", "jpg", "jpeg"].contains(name.pathExtension)
                ? String(decoding: name.bytes.dropFirst(stem.bytes.count), as: UTF8.self) : ".png"
            return folder.appending(stem.adding("-detections" + ext))
        case .mirrored(let root):
            let target = root.appending(input.relativePath)
            return ["png", "jpg", "jpeg"].contains(target.pathExtension) ? target : target.adding(".png")
        }
    }

    /// The target for `input`, checked and claimed for it, its folder created. Throws, for
    /// this image only, when the target is an input, already exists (without `--force`), was
    /// written for another input in this run, or `input` came from the output folder.
    func claim(for input: InputImage) throws -> RawPath {
        let target = path(for: input)
        if case .mirrored(let root) = naming, !force, input.folder == root.standardized {
            throw Error.isInputFolder(root.display)
        }
        let standardized = target.standardized
        if inputs.contains(standardized) || input.path.standardized == standardized { throw Error.isInput(target.display) }
        try lock.withLock {
            if let first = written[standardized] { throw Error.writtenInThisRun(target: target.display, first: first) }
            if !force && target.exists { throw Error.annotatedExists(target.display) }
            written[standardized] = input.display
        }
        try Self.createFolder(target.folder)
        return target
    }

    /// `mkdir -p`; a file already there under a folder's name is an error at once (before
    /// any inference), not one per image later.
    static func createFolder(_ path: RawPath) throws {
        if path.isDirectory { return }
        if path.bytes.count > 1 && path.folder != path { try createFolder(path.folder) }
        let created = path.withCString { mkdir($0, 0o777) }
        if created != 0 && errno != EEXIST {
            throw FileError.unreadable(path, reason: "cannot create the folder: \(String(cString: strerror(errno)))")
        }
        if !path.isDirectory { throw FileError.unreadable(path, reason: "not a folder (a file has that name)") }
    }
}
