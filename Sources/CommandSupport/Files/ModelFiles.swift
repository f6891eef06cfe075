import Darknet
import Foundation

/// Reads the cfg, weights and names a command is given, with the checks the engine leaves to
/// its caller: a missing file worded as every other (`PATH: no such file`), pipes and FIFOs
/// read by streaming (`<(curl …)`), the two model files swapped, and a model of the wrong
/// kind for the command (a detector given to `classify`, a classifier to `detect`).
package enum ModelFiles {
    enum Error: Swift.Error, CustomStringConvertible {
        case swapped(cfg: String, weights: String)
        case weightsGivenAsCfg(String)
        case notADetector(String)
        case notAClassifier(String)
        case unsupportedChannels(String, Int)

        var description: String {
            switch self {
            case .swapped(let cfg, let weights):
                return "cfg and weights seem swapped: \(cfg) is a weights file and \(weights) a cfg"
            case .weightsGivenAsCfg(let path): return "\(path): this is a Darknet weights file, not a cfg"
            case .notADetector(let path): return "\(path): no [yolo] or [region] layer: not a detector (use classify)"
            case .notAClassifier(let path):
                return "\(path): has a [yolo] or [region] layer: a detector, not a classifier (use detect)"
            case .unsupportedChannels(let path, let channels):
                return "\(path): [net] channels=\(channels): images are read as 1, 2, 3 or 4 channels (as darknet's stb_image reads them)"
            }
        }
    }

    /// The parsed cfg (`width`/`height` override `[net]`'s); `weights` only for the swapped check.
    package static func model(cfg: String, weights: String?, width: Int?, height: Int?) throws -> ModelDescription {
        let path = RawPath(argument: cfg)
        let limit = ModelLimits().maximumCfgBytes
        /// A weights file given as the cfg (or cfg and weights swapped) is named as such.
        func checkNotWeights(_ first: [UInt8]) throws {
            guard looksLikeWeights(first) else { return }
            if let weights, looksLikeCfg(try? head(of: RawPath(argument: weights))) {
                throw Error.swapped(cfg: path.display, weights: RawPath(argument: weights).display)
            }
            throw Error.weightsGivenAsCfg(path.display)
        }
        // A regular file's size is known before reading it: a huge one is refused unread.
        if let info = path.status(), info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) > limit {
            try checkNotWeights(try head(of: path) ?? [])
            throw CfgError.tooLarge(file: path.display, bytes: Int(info.st_size), limit: limit)
        }
        let bytes = try FileBytes.read(path, limit: limit, check: checkNotWeights)
        guard let text = validUTF8(bytes) ?? String(bytes: bytes, encoding: .isoLatin1) else {
            throw CfgError.unreadable(file: path.display, reason: "not text")
        }
        var model = try ModelDescription(text: text, file: path.display, width: width ?? height, height: height ?? width)
        model.sourceSHA256 = SHA256.hex(bytes)
        return model
    }

    /// `model` with its parameters from `weights`, prepared under `options` for `batch` images:
    /// mapped when it is a regular file with a UTF-8 name (the engine's reader), else read whole
    /// (a pipe, a FIFO, a Latin-1 name).
    static func prepared(_ weights: String, for model: ModelDescription, options: ExecutionOptions,
                         batch: Int = 1) throws -> PreparedModel {
        let path = RawPath(argument: weights)
        guard let info = path.status() else { throw FileBytes.failure(path, errno) }
        if info.st_mode & S_IFMT == S_IFDIR { throw FileError.isDirectory(path) }
        if info.st_mode & S_IFMT == S_IFREG, validUTF8(path.bytes) != nil {
            return try PreparedModel(model: model, weightsFile: weights, options: options, batch: batch)
        }
        let bytes = try FileBytes.read(path, limit: FileBytes.weightsStreamLimit)
        return try bytes.withUnsafeBytes {
            try PreparedModel(model: model, weightsBytes: $0, file: path.display, options: options, batch: batch)
        }
    }

    /// Images become network inputs of 1...4 channels (stb_image's `req_comp`; see
    /// `Image(decoding:name:channels:)`); another `[net] channels` is refused before the weights are read.
    static func checkChannels(_ model: ModelDescription, cfg: String) throws {
        if !(1...4).contains(model.net.channels) {
            throw Error.unsupportedChannels(RawPath(argument: cfg).display, model.net.channels)
        }
    }

    package static func isDetector(_ model: ModelDescription) -> Bool {
        model.layers.contains(where: \.isDetectionHead)
    }

    /// A weights file starts with its header, three little-endian int32 (major, minor,
    /// revision: 0 2 0, 0 1 0 or 1 0 0): zero bytes no cfg holds.
    static func looksLikeWeights(_ first: [UInt8]) -> Bool {
        guard first.count >= 12, first.prefix(12).contains(0) else { return false }
        let word = { (i: Int) in UInt32(first[i]) | UInt32(first[i + 1]) << 8 | UInt32(first[i + 2]) << 16 | UInt32(first[i + 3]) << 24 }
        return word(0) < 1000 && word(4) < 1000 && word(8) < 1000
    }

    /// A cfg starts with `[` once blank lines and `#`/`;` comments are skipped.
    static func looksLikeCfg(_ head: [UInt8]?) -> Bool {
        guard let head else { return false }
        let text = String(decoding: head.prefix(while: { $0 != 0 }), as: UTF8.self)
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix(";") { continue }
            return trimmed.hasPrefix("[")
        }
        return false
    }

    /// The first kilobyte of a regular file (a pipe is not read: that would consume it).
    static func head(of path: RawPath) throws -> [UInt8]? {
        guard let info = path.status(), info.st_mode & S_IFMT == S_IFREG else { return nil }
        let fd = path.withCString { open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 1024)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return count > 0 ? Array(bytes.prefix(count)) : nil
    }
}
