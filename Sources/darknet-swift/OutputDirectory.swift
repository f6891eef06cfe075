import Foundation

/// `--output-dir DIR`: annotated images keep their names (images found in a folder keep their
/// path relative to it). An input image is never overwritten, even with `--force`; DIR being
/// one of the input folders is refused unless `--force` (the annotated files would otherwise
/// be picked up as inputs by the next run); existing files are replaced only with `--force`.
struct OutputDirectory {
    enum Error: Swift.Error, CustomStringConvertible {
        case isInputFolder(String)
        case wouldOverwriteInput(String)
        case exists(String)

        var description: String {
            switch self {
            case .isInputFolder(let path): return "--output-dir \(path) is an input folder (use --force to write there anyway)"
            case .wouldOverwriteInput(let path): return "\(path) is an input image; refusing to overwrite it"
            case .exists(let path): return "\(path) already exists (use --force to overwrite it)"
            }
        }
    }

    let root: URL
    let force: Bool
    let inputs: Set<String>

    init(_ path: String, inputFolders: [String], images: [InputImage], force: Bool) throws {
        root = URL(fileURLWithPath: path).standardizedFileURL
        self.force = force
        if !force && inputFolders.contains(root.path) { throw Error.isInputFolder(path) }
        inputs = Set(images.map { URL(fileURLWithPath: $0.path).standardizedFileURL.path })
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    /// Where the annotated copy of `input` goes; creates its folder. Throws (for this image
    /// only) when that would overwrite an input or, without `--force`, an existing file.
    func target(for input: InputImage) throws -> String {
        let url = root.appendingPathComponent(input.relativePath).standardizedFileURL
        let ext = url.pathExtension.lowercased()
        let target = ["png", "jpg", "jpeg"].contains(ext) ? url : url.appendingPathExtension("png")
        if inputs.contains(target.path) { throw Error.wouldOverwriteInput(target.path) }
        if !force && FileManager.default.fileExists(atPath: target.path) { throw Error.exists(target.path) }
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        return target.path
    }
}
