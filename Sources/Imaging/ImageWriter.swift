import Foundation

extension Image {
    /// Writes the image as PNG (`.png`) or JPEG (`.jpg`, `.jpeg`, case-insensitive; 4:2:0,
    /// `jpegQuality` 1...100). Samples are clamped to [0, 1] and converted like darknet's
    /// `save_image_options`: `(unsigned char)(255 * v)` (truncation; this round-trips every
    /// `byte / 255` exactly). 1-channel images are written as grayscale, 3-channel as RGB;
    /// other channel counts throw `unencodable`.
    ///
    /// The file is written under a temporary name in the same folder and then renamed over
    /// `path`, so readers never see a half-written image.
    public func write(to path: String, jpegQuality: Int = 90) throws {
        let ext = (path as NSString).pathExtension.lowercased()
        guard ext == "png" || ext == "jpg" || ext == "jpeg" else {
            throw ImageError.unsupportedExtension(path: path)
        }
        guard channels == 1 || channels == 3 else {
            throw ImageError.unencodable(path: path, reason: "\(channels) channels (only 1 or 3 can be written)")
        }
        guard width > 0, height > 0 else {
            throw ImageError.unencodable(path: path, reason: "empty image \(width)x\(height)")
        }
        let pixels = interleavedBytes()
        let encoded = ext == "png"
            ? try encodePNG(pixels, width: width, height: height, channels: channels, path: path)
            : try encodeJPEG(pixels, width: width, height: height, channels: channels, quality: jpegQuality, path: path)
        try writeAtomically(encoded, to: path)
    }

    /// The JPEG file bytes `write(to:)` would write for a `.jpg` path (for pipes such as MJPEG on stdout).
    public func jpegData(quality: Int = 90, name: String = "frame") throws -> [UInt8] {
        guard channels == 1 || channels == 3, width > 0, height > 0 else {
            throw ImageError.unencodable(path: name, reason: "\(channels) channels, \(width)x\(height)")
        }
        return try encodeJPEG(interleavedBytes(), width: width, height: height, channels: channels, quality: quality, path: name)
    }

    /// The pixels interleaved, row after row (RGB24 for 3 channels, one byte for 1), each
    /// sample `(unsigned char)(255 * clamp(v, 0, 1))` as the encoders write them (for a video
    /// encoder or a screen).
    public func interleavedBytes() -> [UInt8] {
        let plane = width * height, nc = channels
        var out = [UInt8](repeating: 0, count: plane * nc)
        data.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for k in 0..<nc {
                    for i in 0..<plane {
                        let v = src[k * plane + i]
                        let clamped: Float = v.isNaN ? 0 : min(max(v, 0), 1)
                        dst[i * nc + k] = UInt8(255 * clamped)
                    }
                }
            }
        }
        return out
    }
}

/// Writes `bytes` to a temporary file next to `path`, then renames it onto `path`. The
/// temporary is created with `O_EXCL | O_NOFOLLOW` under a random name (a file or link planted
/// under that name is never opened) and removed on failure; errors carry the system's reason in
/// the project's words (`openFailure`), never Foundation's sentence.
func writeAtomically(_ bytes: [UInt8], to path: String) throws {
    let url = URL(fileURLWithPath: path)
    let temp = url.deletingLastPathComponent()
        .appendingPathComponent(".\(url.lastPathComponent).tmp-\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 36))").path
    let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard fd >= 0 else {
        throw ImageError.writeFailed(path: path, reason: "cannot create \(temp): \(openFailure(errno))")
    }
    var offset = 0, code: Int32 = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if written < 0 && errno == EINTR { continue }
        if written <= 0 { code = written < 0 ? errno : ENOSPC; break }
        offset += written
    }
    if close(fd) != 0 && code == 0 { code = errno }
    if code == 0 && rename(temp, path) == 0 { return }
    let reason = openFailure(code != 0 ? code : errno)
    unlink(temp)
    throw ImageError.writeFailed(path: path, reason: code != 0 ? "cannot write \(temp): \(reason)"
                                 : "cannot rename temporary file into place: \(reason)")
}
