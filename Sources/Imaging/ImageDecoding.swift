import Foundation

/// Interleaved 8-bit pixels as a codec hands them over (row-major, R G B per pixel, or one
/// grey byte when `components` is 1), with the file's alpha apart when it was asked for.
struct RGB8 {
    var width: Int
    var height: Int
    var bytes: [UInt8]
    /// EXIF orientation tag value (1...8) found in the file, 1 when absent.
    var orientation: Int = 1
    /// 3 (RGB) or 1 (grey: a JPEG's Y plane, see `Image(decoding:name:channels:)`).
    var components = 3
    /// One alpha byte per pixel: only when asked for, and only for files that have alpha.
    var alpha: [UInt8]? = nil
}

extension Image {
    /// darknet `load_image_color(path, 0, 0)`: decodes a JPEG or PNG file into a 3-channel RGB
    /// image with samples `byte / 255` (darknet's `ipl_to_image`), after applying the EXIF
    /// orientation as OpenCV `imread(IMREAD_COLOR)` does. Throws `ImageError` naming `path`.
    /// Pipes, FIFOs and devices are read until they end (see `readImageFile`).
    /// An image larger than `maxPixels` is `tooLarge` before anything is allocated.
    public init(contentsOf path: String, maxPixels: Int = Image.defaultMaxPixels) throws {
        try self.init(decoding: readImageFile(path), name: path, maxPixels: maxPixels)
    }

    /// Decodes JPEG or PNG bytes (format chosen by the magic bytes, not the name) into 3-channel
    /// RGB exactly as `Image(contentsOf:)`; `name` only labels errors.
    public init(decoding bytes: [UInt8], name: String, maxPixels: Int = Image.defaultMaxPixels) throws {
        if bytes.isEmpty { throw ImageError.empty(name: name) }
        let rgb: RGB8
        if bytes.count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF {
            rgb = try decodeJPEG(bytes, name: name, maxPixels: maxPixels)
        } else if bytes.starts(with: pngSignature) {
            rgb = try decodePNG(bytes, name: name, maxPixels: maxPixels)
        } else {
            throw ImageError.unsupportedFormat(name: name, magic: describeMagic(bytes))
        }
        self = planarImage(from: rgb)
    }
}

let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

/// Throws `tooLarge` (past `maxPixels`) / `invalidDimensions` before any pixel buffer is allocated.
func checkDimensions(width: Int, height: Int, name: String, maxPixels: Int) throws {
    guard width > 0, height > 0 else {
        throw ImageError.invalidDimensions(name: name, width: width, height: height)
    }
    let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
    if overflow || pixels > maxPixels {
        throw ImageError.tooLarge(name: name, width: width, height: height, limit: maxPixels)
    }
}

/// "47 49 46 38 39 61 01 00 (\"GIF89a..\")": up to 8 bytes in hex plus their printable ASCII.
func describeMagic(_ bytes: [UInt8]) -> String {
    let head = bytes.prefix(8)
    let hex = head.map { byte -> String in
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }.joined(separator: " ")
    let ascii = String(head.map { (0x20..<0x7F).contains($0) ? Character(UnicodeScalar($0)) : "." })
    return "\(hex) (\"\(ascii)\")"
}

/// byte / 255 as darknet computes it (`data[i]/255.` in double, stored as float); for every byte
/// this equals `Float(byte) / 255`, checked in the tests.
let byteToUnit: [Float] = (0..<256).map { Float(Double($0) / 255.0) }

/// Interleaved RGB8 → planar CHW floats, applying the EXIF orientation like OpenCV's
/// `ApplyExifOrientation` (2 flip x, 3 rotate 180, 4 flip y, 5 transpose, 6 rotate 90° clockwise,
/// 7 transverse, 8 rotate 90° counter-clockwise).
func planarImage(from rgb: RGB8) -> Image {
    let sw = rgb.width, sh = rgb.height
    let transposed = rgb.orientation >= 5 && rgb.orientation <= 8
    let w = transposed ? sh : sw
    let h = transposed ? sw : sh
    var out = [Float](repeating: 0, count: 3 * w * h)
    let plane = w * h
    let orientation = rgb.orientation
    rgb.bytes.withUnsafeBufferPointer { src in
        byteToUnit.withUnsafeBufferPointer { lut in
            out.withUnsafeMutableBufferPointer { dst in
                if orientation < 2 || orientation > 8 {   // no rotation: straight de-interleave
                    for i in 0..<plane {
                        dst[i] = lut[Int(src[3 * i])]
                        dst[plane + i] = lut[Int(src[3 * i + 1])]
                        dst[2 * plane + i] = lut[Int(src[3 * i + 2])]
                    }
                    return
                }
                for y in 0..<h {
                    for x in 0..<w {
                        let (sx, sy) = exifSource(x: x, y: y, width: sw, height: sh, orientation: orientation)
                        let s = 3 * (sy * sw + sx)
                        let d = y * w + x
                        dst[d] = lut[Int(src[s])]
                        dst[plane + d] = lut[Int(src[s + 1])]
                        dst[2 * plane + d] = lut[Int(src[s + 2])]
                    }
                }
            }
        }
    }
    return Image(width: w, height: h, channels: 3, data: out)
}

/// The source pixel (sx, sy) of a `width` × `height` image that lands on output (x, y) after
/// the EXIF `orientation` is applied.
@inline(__always)
func exifSource(x: Int, y: Int, width sw: Int, height sh: Int, orientation: Int) -> (Int, Int) {
    switch orientation {
    case 2: return (sw - 1 - x, y)
    case 3: return (sw - 1 - x, sh - 1 - y)
    case 4: return (x, sh - 1 - y)
    case 5: return (y, x)
    case 6: return (y, sh - 1 - x)
    case 7: return (sw - 1 - y, sh - 1 - x)
    case 8: return (sw - 1 - y, x)
    default: return (x, y)
    }
}
