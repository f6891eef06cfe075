/// EXIF orientation lookup (OpenCV 4.x `imread` honours it for JPEG APP1 "Exif" and PNG eXIf;
/// verified with the darknet oracle, see Tests/ImagingTests/Fixtures/README.md).

/// Orientation (1...8) from a TIFF structure ("II*\0" or "MM\0*"), IFD0 tag 0x0112; 1 when the
/// tag is absent, malformed or out of range. Never reads out of bounds.
func exifOrientation(tiff: ArraySlice<UInt8>) -> Int {
    let b = Array(tiff)
    guard b.count >= 8 else { return 1 }
    let little: Bool
    if b[0] == 0x49 && b[1] == 0x49 { little = true } else if b[0] == 0x4D && b[1] == 0x4D { little = false } else { return 1 }
    func u16(_ o: Int) -> Int? {
        guard o >= 0, o + 2 <= b.count else { return nil }
        return little ? Int(b[o]) | Int(b[o + 1]) << 8 : Int(b[o]) << 8 | Int(b[o + 1])
    }
    func u32(_ o: Int) -> Int? {
        guard let lo = u16(little ? o : o + 2), let hi = u16(little ? o + 2 : o) else { return nil }
        return hi << 16 | lo
    }
    guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return 1 }
    for i in 0..<count {
        let entry = ifd + 2 + 12 * i
        guard let tag = u16(entry), let type = u16(entry + 2) else { return 1 }
        if tag == 0x0112 {
            guard type == 3, let value = u16(entry + 8), (1...8).contains(value) else { return 1 }
            return value
        }
    }
    return 1
}

/// Orientation from the first APP1 "Exif\0\0" segment before the JPEG scan data; 1 if none.
func jpegExifOrientation(_ bytes: [UInt8]) -> Int {
    var o = 2
    while o + 4 <= bytes.count {
        guard bytes[o] == 0xFF else { return 1 }
        let marker = bytes[o + 1]
        if marker == 0xFF { o += 1; continue }           // fill byte
        if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { o += 2; continue }
        if marker == 0xDA || marker == 0xD9 { return 1 } // start of scan / end of image
        let length = Int(bytes[o + 2]) << 8 | Int(bytes[o + 3])
        guard length >= 2, o + 2 + length <= bytes.count else { return 1 }
        let body = bytes[(o + 4)..<(o + 2 + length)]
        if marker == 0xE1, body.starts(with: [0x45, 0x78, 0x69, 0x66, 0, 0]) {
            return exifOrientation(tiff: body.dropFirst(6))
        }
        o += 2 + length
    }
    return 1
}
