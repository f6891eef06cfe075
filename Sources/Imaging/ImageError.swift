/// Everything that can go wrong reading, decoding or writing an image.
/// Each case names the file (a path, or the `name` given to `Image(decoding:name:)`).
public enum ImageError: Error, CustomStringConvertible, Equatable {
    /// The file could not be read at all (missing, a directory, no permission...).
    case unreadable(path: String, reason: String)
    /// The file or buffer holds zero bytes.
    case empty(name: String)
    /// Neither JPEG (`FF D8 FF`) nor PNG (`89 50 4E 47 0D 0A 1A 0A`); `magic` shows the first bytes.
    case unsupportedFormat(name: String, magic: String)
    /// libjpeg-turbo refused the data (corrupt or truncated); `message` is TurboJPEG's.
    case corruptJPEG(name: String, message: String)
    /// The PNG chunk structure or libpng refused the data; `message` says what and where.
    case corruptPNG(name: String, message: String)
    /// width × height exceeds the decoder's `maxPixels` (checked before allocating).
    case tooLarge(name: String, width: Int, height: Int, limit: Int)
    /// The header declares a zero or negative size.
    case invalidDimensions(name: String, width: Int, height: Int)
    /// Interleaved pixels whose size, row stride or byte count do not fit together.
    case invalidPixelBuffer(name: String, reason: String)
    /// `write(to:)` only knows .png, .jpg and .jpeg.
    case unsupportedExtension(path: String)
    /// The image cannot be encoded (e.g. channel count other than 1 or 3, zero size).
    case unencodable(path: String, reason: String)
    /// A decode asked for a channel count other than 1...4 (stb_image's `req_comp`).
    case unsupportedChannels(name: String, channels: Int)
    /// Encoding or writing the file failed.
    case writeFailed(path: String, reason: String)

    public var description: String {
        switch self {
        case let .unreadable(path, reason):
            return "cannot read image '\(path)': \(reason)"
        case let .empty(name):
            return "image '\(name)' is empty (0 bytes)"
        case let .unsupportedFormat(name, magic):
            return "image '\(name)' is neither JPEG nor PNG (first bytes: \(magic))"
        case let .corruptJPEG(name, message):
            return "corrupt or truncated JPEG '\(name)': \(message)"
        case let .corruptPNG(name, message):
            return "corrupt or truncated PNG '\(name)': \(message)"
        case let .tooLarge(name, width, height, limit):
            return "image '\(name)' is \(width)x\(height) pixels, more than the limit of \(limit) pixels (maxPixels)"
        case let .invalidDimensions(name, width, height):
            return "image '\(name)' declares an invalid size \(width)x\(height)"
        case let .invalidPixelBuffer(name, reason):
            return "pixel buffer '\(name)': \(reason)"
        case let .unsupportedExtension(path):
            return "cannot write image '\(path)': unknown extension (use .png, .jpg or .jpeg)"
        case let .unencodable(path, reason):
            return "cannot write image '\(path)': \(reason)"
        case let .unsupportedChannels(name, channels):
            return "image '\(name)': cannot decode to \(channels) channels (1, 2, 3 or 4)"
        case let .writeFailed(path, reason):
            return "cannot write image '\(path)': \(reason)"
        }
    }
}
