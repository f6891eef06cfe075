import Foundation

/// Where annotated images go: one file for one image, a folder for several. Refuses to
/// overwrite existing files (or an input) unless `--force`.
struct AnnotationOutputs {
    enum Error: Swift.Error, CustomStringConvertible {
        case exists(String)
        case isInput(String)
        case needsFolder(String)
        case badExtension(String)

        var description: String {
            switch self {
            case .exists(let path): return "\(path) already exists (use --force to overwrite it)"
            case .isInput(let path): return "\(path) is one of the input images; refusing to overwrite it"
            case .needsFolder(let path): return "several images given: --output \(path) must be a folder"
            case .badExtension(let path): return "\(path): the output must end in .png, .jpg or .jpeg"
            }
        }
    }

    private var targets: [String: String] = [:]

    init(path: String?, images: [String], force: Bool) throws {
        guard let path else { return }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if images.count > 1 || (exists && isDirectory.boolValue) {
            if exists && !isDirectory.boolValue { throw Error.needsFolder(path) }
            if !exists { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
            for image in images {
                let url = URL(fileURLWithPath: image)
                let ext = ["png", "jpg", "jpeg"].contains(url.pathExtension.lowercased()) ? url.pathExtension : "png"
                let name = url.deletingPathExtension().lastPathComponent + "-detections." + ext
                targets[image] = URL(fileURLWithPath: path).appendingPathComponent(name).path
            }
        } else {
            guard ["png", "jpg", "jpeg"].contains(URL(fileURLWithPath: path).pathExtension.lowercased()) else {
                throw Error.badExtension(path)
            }
            targets[images[0]] = path
        }
        let inputs = Set(images.map { URL(fileURLWithPath: $0).standardizedFileURL.path })
        for target in targets.values {
            if inputs.contains(URL(fileURLWithPath: target).standardizedFileURL.path) { throw Error.isInput(target) }
            if !force && FileManager.default.fileExists(atPath: target) { throw Error.exists(target) }
        }
    }

    func target(for image: String) -> String? { targets[image] }
}
