#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Largest image read from a pipe, FIFO or device (whose size is unknown until it ends).
let maximumStreamedImageBytes = 1 << 30

/// The bytes of the image file at `path`. A regular file is read whole; a pipe, FIFO or
/// device (`<(cat photo.jpg)`, `/dev/stdin`) is read until it ends, and refused as soon as
/// its first bytes are neither JPEG nor PNG (so `/dev/zero` is not read forever) or past
/// `maximumStreamedImageBytes`. Throws `ImageError` naming `path`.
func readImageFile(_ path: String) throws -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw ImageError.unreadable(path: path, reason: openFailure(errno)) }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw ImageError.unreadable(path: path, reason: String(cString: strerror(errno))) }
    let kind = info.st_mode & S_IFMT
    if kind == S_IFDIR { throw ImageError.unreadable(path: path, reason: "is a directory") }
    let regular = kind == S_IFREG
    var bytes: [UInt8] = []
    if regular { bytes.reserveCapacity(Int(info.st_size)) }
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    var checked = regular
    while true {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            throw ImageError.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        if count == 0 { break }
        bytes += chunk.prefix(count)
        if !checked && bytes.count >= 8 {
            checked = true
            if !looksLikeAnImage(bytes) { throw ImageError.unsupportedFormat(name: path, magic: describeMagic(bytes)) }
        }
        if !regular && bytes.count > maximumStreamedImageBytes {
            throw ImageError.unreadable(path: path, reason: "more than \(maximumStreamedImageBytes) bytes from a stream")
        }
    }
    return bytes
}

/// JPEG's `FF D8 FF` or PNG's signature: what `Image(decoding:name:)` accepts.
func looksLikeAnImage(_ bytes: [UInt8]) -> Bool {
    (bytes.count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF) || bytes.starts(with: pngSignature)
}

/// The reason `open(2)` failed, in the words the whole project uses for a missing file.
func openFailure(_ code: Int32) -> String {
    code == ENOENT ? "no such file" : String(cString: strerror(code))
}
