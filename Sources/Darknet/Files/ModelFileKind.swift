import Foundation

/// What a model file's first bytes say it is, so that a cfg and weights given the wrong way
/// round are named as such instead of failing as a cfg that "does not parse" or weights that
/// "are text". The same rules for the library's `Detector(cfg:weights:)` and the CLI.
public enum ModelFileKind {
    /// A weights file starts with its header, three little-endian int32 (major, minor,
    /// revision: 0 2 0, 0 1 0 or 1 0 0): zero bytes no cfg holds.
    public static func looksLikeWeights(_ first: [UInt8]) -> Bool {
        guard first.count >= 12, first.prefix(12).contains(0) else { return false }
        let word = { (i: Int) in UInt32(first[i]) | UInt32(first[i + 1]) << 8 | UInt32(first[i + 2]) << 16 | UInt32(first[i + 3]) << 24 }
        return word(0) < 1000 && word(4) < 1000 && word(8) < 1000
    }

    /// A cfg starts with `[` once blank lines and `#`/`;` comments are skipped.
    public static func looksLikeCfg(_ head: [UInt8]?) -> Bool {
        guard let head else { return false }
        let text = String(decoding: head.prefix(while: { $0 != 0 }), as: UTF8.self)
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix(";") { continue }
            return trimmed.hasPrefix("[")
        }
        return false
    }

    /// The first kilobyte of the regular file at `path`; nil for anything else (a pipe is not
    /// read: that would consume it) or when it cannot be opened.
    public static func head(ofFile path: String) -> [UInt8]? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 1024)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return count > 0 ? Array(bytes.prefix(count)) : nil
    }

    /// Throws when the file at `cfg` is a weights file (`swapped` when `weights` then holds a
    /// cfg) or the file at `weights` is a cfg; regular files only.
    public static func check(cfg: String, weights: String) throws(ModelFileError) {
        if looksLikeWeights(head(ofFile: cfg) ?? []) {
            if looksLikeCfg(head(ofFile: weights)) { throw .swapped(cfg: cfg, weights: weights) }
            throw .weightsGivenAsCfg(cfg)
        }
        if looksLikeCfg(head(ofFile: weights)) { throw .cfgGivenAsWeights(weights) }
    }
}

/// A model file that is the other kind of model file.
public enum ModelFileError: Error, Equatable, CustomStringConvertible {
    /// The cfg path holds a weights file and the weights path a cfg.
    case swapped(cfg: String, weights: String)
    /// The cfg path holds a weights file.
    case weightsGivenAsCfg(String)
    /// The weights path holds a cfg.
    case cfgGivenAsWeights(String)

    public var description: String {
        switch self {
        case .swapped(let cfg, let weights):
            return "cfg and weights seem swapped: \(cfg) is a weights file and \(weights) a cfg"
        case .weightsGivenAsCfg(let path): return "\(path): this is a Darknet weights file, not a cfg"
        case .cfgGivenAsWeights(let path): return "\(path): this is a Darknet cfg, not a weights file"
        }
    }
}
