import Darknet
import Foundation

/// Reads the cfg, weights and names a command is given, with the checks the engine leaves to
/// its caller: a missing file worded as every other (`PATH: no such file`), pipes and FIFOs
/// read by streaming (`<(curl …)`), the two model files swapped, and a model of the wrong
/// kind for the command (a detector given to `classify`, a classifier to `detect`).
package enum ModelFiles {
    enum Error: Swift.Error, CustomStringConvertible {
        case notADetector(String)
        case notAClassifier(String)
        case unsupportedChannels(String, Int)
        /// `NetworkError.tooMuchMemory` with what the user can change: the cfg and its input size.
        case tooMuchMemory(cfg: String, width: Int, height: Int, batch: Int, NetworkError)

        var description: String {
            switch self {
            case .notADetector(let path): return "\(path): no [yolo] or [region] layer: not a detector (use classify)"
            case .notAClassifier(let path):
                return "\(path): has a [yolo] or [region] layer: a detector, not a classifier (use detect)"
            case .unsupportedChannels(let path, let channels):
                return "\(path): [net] channels=\(channels): images are read as 1, 2, 3 or 4 channels (as darknet's stb_image reads them)"
            case .tooMuchMemory(let cfg, let width, let height, let batch, let error):
                return "\(cfg) at \(width)x\(height)" + (batch > 1 ? ", batch \(batch)" : "")
                    + ": \(error) (a smaller --size" + (batch > 1 ? " or --batch" : "") + " needs less)"
            }
        }
    }

    /// The parsed cfg (`width`/`height` override `[net]`'s); `weights` only for the swapped check.
    package static func model(cfg: String, weights: String?, width: Int?, height: Int?) throws -> ModelDescription {
        let path = RawPath(argument: cfg)
        let limit = ModelLimits().maximumCfgBytes
        /// A weights file given as the cfg (or cfg and weights swapped) is named as such
        /// (`ModelFileKind`'s rules, which `Detector(cfg:weights:)` applies too).
        func checkNotWeights(_ first: [UInt8]) throws {
            guard ModelFileKind.looksLikeWeights(first) else { return }
            if let weights, ModelFileKind.looksLikeCfg(try? head(of: RawPath(argument: weights))) {
                throw ModelFileError.swapped(cfg: path.display, weights: RawPath(argument: weights).display)
            }
            throw ModelFileError.weightsGivenAsCfg(path.display)
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
    /// a regular file is mapped (the engine's reader; a name that is not UTF-8 is opened by its
    /// bytes, then mapped), so its size is checked before any of it is read; a pipe, FIFO or
    /// device is read up to the size the cfg needs (header and parameters) and refused past it
    /// (`/dev/zero` stops there instead of filling memory).
    static func prepared(_ weights: String, for model: ModelDescription, options: ExecutionOptions,
                         batch: Int = 1) throws -> PreparedModel {
        let path = RawPath(argument: weights)
        guard let info = path.status() else { throw FileBytes.failure(path, errno) }
        if info.st_mode & S_IFMT == S_IFDIR { throw FileError.isDirectory(path) }
        if ModelFileKind.looksLikeCfg(try head(of: path)) { throw ModelFileError.cfgGivenAsWeights(path.display) }
        if info.st_mode & S_IFMT == S_IFREG {
            if validUTF8(path.bytes) != nil {
                return try PreparedModel(model: model, weightsFile: weights, options: options, batch: batch)
            }
            let fd = path.withCString { open($0, O_RDONLY | O_CLOEXEC) }
            guard fd >= 0 else { throw FileBytes.failure(path, errno) }
            defer { close(fd) }
            return try PreparedModel(model: model, weightsDescriptor: fd, file: path.display, options: options, batch: batch)
        }
        // The largest header is 20 bytes; one byte more than the file can hold is enough to refuse it.
        let needed = 20 + WeightsReader.parameterBytes(for: model)
        let bytes = try FileBytes.read(path, limit: min(needed, FileBytes.weightsStreamLimit))
        return try bytes.withUnsafeBytes {
            try PreparedModel(model: model, weightsBytes: $0, file: path.display, options: options, batch: batch)
        }
    }

    /// Runs `body` (which makes networks of `model`), naming the cfg and its input size in an
    /// activation-memory error, which alone names neither.
    package static func namingMemory<T>(of model: ModelDescription, cfg: String, batch: Int = 1, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as NetworkError {
            guard case .tooMuchMemory = error else { throw error }
            throw Error.tooMuchMemory(cfg: RawPath(argument: cfg).display, width: model.net.width, height: model.net.height,
                                      batch: batch, error)
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
