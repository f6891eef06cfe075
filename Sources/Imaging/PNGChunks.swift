/// PNG chunk-level preparation done before libpng sees the data, so that libpng's simplified
/// (setjmp-free) API reproduces OpenCV's classic-API decode (`png_set_strip_16`,
/// `png_set_strip_alpha`, no gamma handling):
/// - only the critical chunks IHDR, PLTE (palette images only), IDAT and IEND are passed on.
///   Dropping gAMA/cHRM/sRGB/iCCP stops the simplified API from gamma-converting; dropping tRNS
///   is harmless because OpenCV strips alpha anyway. The eXIf payload is kept for orientation.
/// - 16-bit gray+alpha is relabelled as 8-bit RGBA of the same width (both 4 bytes per pixel,
///   so PNG unfiltering is byte-identical): the "R" byte is then the high byte of the gray
///   sample, which is exactly what `png_set_strip_16` keeps.
struct PNGPrepared {
    /// Size, bit depth and colour type as libpng will see them (after relabelling).
    var width: Int
    var height: Int
    var bitDepth: UInt8
    var colorType: UInt8
    var relabelledGrayAlpha16: Bool
    var exif: [UInt8]?
    var stream: [UInt8]
}

func preparePNG(_ bytes: [UInt8], name: String, maxPixels: Int) throws -> PNGPrepared {
    func be32(_ o: Int) -> Int {
        Int(bytes[o]) << 24 | Int(bytes[o + 1]) << 16 | Int(bytes[o + 2]) << 8 | Int(bytes[o + 3])
    }
    var out = pngSignature
    var offset = 8
    var header: (w: Int, h: Int, depth: UInt8, type: UInt8)? = nil
    var relabel = false
    var exif: [UInt8]? = nil
    var sawIEND = false
    while offset < bytes.count {
        guard offset + 12 <= bytes.count else {
            throw ImageError.corruptPNG(name: name, message: "truncated chunk header at offset \(offset)")
        }
        let length = be32(offset)
        let typeBytes = Array(bytes[(offset + 4)..<(offset + 8)])
        let type = String(decoding: typeBytes, as: UTF8.self)
        guard length <= 0x7FFF_FFFF, offset + 12 + length <= bytes.count else {
            throw ImageError.corruptPNG(name: name, message: "chunk '\(type)' at offset \(offset) declares \(length) bytes but the file ends at \(bytes.count)")
        }
        var chunk = Array(bytes[offset..<(offset + 12 + length)])
        let critical = typeBytes[0] & 0x20 == 0
        if header == nil {
            guard type == "IHDR", length == 13 else {
                throw ImageError.corruptPNG(name: name, message: "first chunk is '\(type)', expected a 13-byte IHDR")
            }
            let w = be32(offset + 8), h = be32(offset + 12)
            let depth = bytes[offset + 16], colorType = bytes[offset + 17]
            try checkDimensions(width: w, height: h, name: name, maxPixels: maxPixels)
            if depth == 16 && colorType == 4 {
                relabel = true
                chunk[8 + 8] = 8      // bit depth
                chunk[8 + 9] = 6      // color type RGBA
                let crc = crc32(chunk[4..<(8 + 13)])
                for i in 0..<4 { chunk[8 + 13 + i] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * UInt32(i))) }
            }
            header = relabel ? (w, h, 8, 6) : (w, h, depth, colorType)
            out += chunk
        } else if type == "eXIf" {
            if exif == nil { exif = Array(bytes[(offset + 8)..<(offset + 8 + length)]) }
        } else if type == "PLTE" {
            if header?.type == 3 { out += chunk }
        } else if critical {
            out += chunk          // IDAT, IEND and unknown critical chunks (libpng rejects those)
        }
        offset += 12 + length
        if type == "IEND" { sawIEND = true; break }
    }
    guard let header else { throw ImageError.corruptPNG(name: name, message: "no IHDR chunk") }
    guard sawIEND else {
        throw ImageError.corruptPNG(name: name, message: "file ends at \(bytes.count) bytes without an IEND chunk (truncated)")
    }
    return PNGPrepared(width: header.w, height: header.h, bitDepth: header.depth, colorType: header.type,
                       relabelledGrayAlpha16: relabel, exif: exif, stream: out)
}

/// CRC-32 (ISO 3309, as in PNG) of the bytes.
func crc32<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc = crc32Table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
    }
    return crc ^ 0xFFFF_FFFF
}

let crc32Table: [UInt32] = (0..<256).map { n -> UInt32 in
    var c = UInt32(n)
    for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    return c
}
