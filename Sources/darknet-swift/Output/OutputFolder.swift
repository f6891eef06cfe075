import CommandSupport
import Foundation
import YOLO

/// A folder that receives files named after each input image (`--save-labels`, `--crops`),
/// under the rules of annotated images (`AnnotationTargets`): an image found in an input
/// folder keeps its path relative to that folder (so `a/x.jpg` and `b/x.jpg` found in `a/`
/// and `b/` do not meet); an existing file is replaced only with `--force` or when resuming
/// (`--skip-existing`: an image that runs again had no annotated image, which is written
/// last, so its label and crop files are what a stopped run left); an input image is never
/// replaced; and two inputs never write the same file in one run (the second fails).
final class OutputFolder: @unchecked Sendable {
    enum Error: Swift.Error, CustomStringConvertible {
        case noLabelName(String)

        var description: String {
            switch self {
            case .noLabelName(let path):
                return "\(path): no label file name: darknet infers it from an image extension (.jpg, .jpeg, .png, .bmp, .ppm, .tiff)"
            }
        }
    }

    /// The folder, or nil for `--save-labels-beside-images`: each label file where darknet's
    /// training reads its image's (`LabelFile.path(forImage:)`, as his `-save_labels` writes it).
    let root: RawPath?
    let force: Bool
    /// An existing file may be replaced: `--force`, or resuming.
    let replacing: Bool
    /// Refuse to write when the folder is an input folder (without `--force`): crops are
    /// images, which a later run over that folder would take as inputs. Labels may go there:
    /// a `.txt` beside each image is where darknet's training looks for them.
    let refusesInputFolder: Bool
    private let inputs: Set<RawPath>
    private let lock = NSLock()
    private var written: [RawPath: String] = [:]

    /// Creates the folder (`mkdir -p`); `folders` are the input folders given on the command line.
    init(_ path: String, inputs: [InputImage], folders: [RawPath], refusesInputFolder: Bool, force: Bool,
         resuming: Bool = false) throws {
        let root = RawPath(argument: path)
        self.root = root
        self.force = force
        self.replacing = force || resuming
        self.refusesInputFolder = refusesInputFolder
        self.inputs = Set(inputs.map { $0.path.standardized })
        if refusesInputFolder && !force && folders.contains(root.standardized) {
            throw AnnotationTargets.Error.isInputFolder(root.display)
        }
        try AnnotationTargets.createFolder(root)
    }

    /// Label files beside the images, as darknet places them.
    init(besideImages inputs: [InputImage], force: Bool, resuming: Bool = false) {
        root = nil
        self.force = force
        self.replacing = force || resuming
        refusesInputFolder = false
        self.inputs = Set(inputs.map { $0.path.standardized })
    }

    /// `input`'s relative path under the folder, its extension replaced: `stem + suffix`; or,
    /// beside the images, darknet's label file for it (a name not ending in an image
    /// extension has none, as darknet's `replace_image_to_label` finds none).
    func path(for input: InputImage, suffix: String) throws -> RawPath {
        if let root { return root.appending(input.relativePath.deletingExtension.adding(suffix)) }
        guard !input.path.isStandardInput, let name = validUTF8(input.path.bytes).flatMap(LabelFile.path(forImage:)) else {
            throw Error.noLabelName(input.display)
        }
        return RawPath(argument: name)
    }

    /// Checks and claims `targets` for `input` (all or none), creating their folders. Throws,
    /// for this image only, when a target is an input, exists (without `--force`) or was
    /// written for another input in this run, or when `input` came from this folder.
    func claim(_ targets: [RawPath], for input: InputImage) throws {
        if refusesInputFolder, !force, let root, input.folder == root.standardized {
            throw AnnotationTargets.Error.isInputFolder(root.display)
        }
        let standardized = targets.map(\.standardized)
        for (target, path) in zip(targets, standardized) where inputs.contains(path) || input.path.standardized == path {
            throw AnnotationTargets.Error.isInput(target.display)
        }
        try lock.withLock {
            for (target, path) in zip(targets, standardized) {
                if let first = written[path] { throw AnnotationTargets.Error.writtenInThisRun(target: target.display, first: first) }
                if !replacing && target.exists { throw AnnotationTargets.Error.exists(target.display) }
            }
            for path in standardized { written[path] = input.display }
        }
        for folder in Set(targets.map(\.folder)) { try AnnotationTargets.createFolder(folder) }
    }
}
