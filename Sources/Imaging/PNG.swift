import CPNG

/// PNG decoding through libpng's simplified API (`png_image_*`, no setjmp needed), producing
/// the RGB bytes OpenCV 4.6 `imread(IMREAD_COLOR)` produces: alpha dropped without compositing,
/// gray replicated, palettes expanded, 1/2/4-bit gray scaled to 0...255, 16-bit samples reduced
/// to their high byte (`png_set_strip_16`), no gamma correction. See `preparePNG` for the chunk
/// filtering that makes the simplified API do exactly that.
///
/// 16-bit RGBA is first decoded completely by the simplified API (premultiplied, used only to
/// validate the stream) and then re-read with the classic API (see `decodeRGBA16Classic`).
///
/// `alpha`: also hand over the alpha of grey+alpha and RGBA files (the high byte of 16-bit
/// alpha, as `png_set_strip_16` keeps it), for 2- and 4-channel decoding.
func decodePNG(_ bytes: [UInt8], name: String, maxPixels: Int, alpha wantsAlpha: Bool = false) throws -> RGB8 {
    let png = try preparePNG(bytes, name: name, maxPixels: maxPixels)
    let sixteen = png.bitDepth == 16 && !png.relabelledGrayAlpha16
    // png.h format flags (the composite PNG_FORMAT_* macros are not imported into Swift).
    let alpha = UInt32(PNG_FORMAT_FLAG_ALPHA), color = UInt32(PNG_FORMAT_FLAG_COLOR), linear = UInt32(PNG_FORMAT_FLAG_LINEAR)
    let format: UInt32
    let components: Int
    switch (png.colorType, sixteen) {
    case (0, false): (format, components) = (0, 1)                       // PNG_FORMAT_GRAY
    case (4, false): (format, components) = (alpha, 2)                   // PNG_FORMAT_GA
    case (6, false): (format, components) = (color | alpha, 4)           // PNG_FORMAT_RGBA
    case (0, true): (format, components) = (linear, 1)                   // PNG_FORMAT_LINEAR_Y
    case (2, true): (format, components) = (linear | color, 3)           // PNG_FORMAT_LINEAR_RGB
    case (6, true): (format, components) = (linear | color | alpha, 4)   // PNG_FORMAT_LINEAR_RGB_ALPHA
    case (2, false), (3, false): (format, components) = (color, 3)       // PNG_FORMAT_RGB
    default:
        throw ImageError.corruptPNG(name: name, message: "invalid color type \(png.colorType) with bit depth \(png.bitDepth)")
    }
    let sampleCount = png.width * png.height * components
    var bytes8 = [UInt8]()
    var samples16 = [UInt16]()
    if sixteen { samples16 = [UInt16](repeating: 0, count: sampleCount) } else { bytes8 = [UInt8](repeating: 0, count: sampleCount) }

    var image = png_image()
    image.version = png_uint_32(PNG_IMAGE_VERSION)
    let ok: Bool = png.stream.withUnsafeBufferPointer { stream in
        guard png_image_begin_read_from_memory(&image, stream.baseAddress, stream.count) != 0 else { return false }
        image.format = format
        let finished: Int32
        if sixteen {
            finished = samples16.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, 0, nil) }
        } else {
            finished = bytes8.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, 0, nil) }
        }
        return finished != 0
    }
    let message = pngMessage(&image)
    png_image_free(&image)
    if !ok { throw ImageError.corruptPNG(name: name, message: "libpng: \(message)") }
    guard Int(image.width) == png.width, Int(image.height) == png.height else {
        throw ImageError.corruptPNG(name: name, message: "libpng reported \(image.width)x\(image.height), IHDR says \(png.width)x\(png.height)")
    }

    let n = png.width * png.height
    var rgb = [UInt8](repeating: 0, count: n * 3)
    var alphaBytes: [UInt8]? = nil
    switch (components, sixteen) {
    case (1, false):
        for i in 0..<n { let g = bytes8[i]; rgb[3 * i] = g; rgb[3 * i + 1] = g; rgb[3 * i + 2] = g }
    case (2, false):
        for i in 0..<n { let g = bytes8[2 * i]; rgb[3 * i] = g; rgb[3 * i + 1] = g; rgb[3 * i + 2] = g }
        if wantsAlpha { alphaBytes = (0..<n).map { bytes8[2 * $0 + 1] } }
    case (3, false):
        rgb = bytes8
    case (4, false):
        // RGBA8, or 16-bit gray+alpha relabelled as RGBA8: byte 0 is R (or the gray high byte).
        for i in 0..<n {
            if png.relabelledGrayAlpha16 {
                let g = bytes8[4 * i]; rgb[3 * i] = g; rgb[3 * i + 1] = g; rgb[3 * i + 2] = g
            } else {
                rgb[3 * i] = bytes8[4 * i]; rgb[3 * i + 1] = bytes8[4 * i + 1]; rgb[3 * i + 2] = bytes8[4 * i + 2]
            }
        }
        // Relabelled 16-bit grey+alpha is G G A A: byte 2 is the alpha's high byte.
        if wantsAlpha { alphaBytes = (0..<n).map { bytes8[4 * $0 + (png.relabelledGrayAlpha16 ? 2 : 3)] } }
    case (1, true):
        for i in 0..<n { let g = UInt8(samples16[i] >> 8); rgb[3 * i] = g; rgb[3 * i + 1] = g; rgb[3 * i + 2] = g }
    case (3, true):
        for i in 0..<(3 * n) { rgb[i] = UInt8(samples16[i] >> 8) }
    default: // (4, true): the stream decoded without error; now read it the way OpenCV does.
        guard let classic = decodeRGBA16Classic(png, keepAlpha: wantsAlpha) else {
            throw ImageError.corruptPNG(name: name, message: "libpng: cannot create a reader")
        }
        if wantsAlpha {
            rgb = (0..<(3 * n)).map { classic[4 * ($0 / 3) + $0 % 3] }
            alphaBytes = (0..<n).map { classic[4 * $0 + 3] }
        } else {
            rgb = classic
        }
    }
    let orientation = png.exif.map { exifOrientation(tiff: $0[...]) } ?? 1
    return RGB8(width: png.width, height: png.height, bytes: rgb, orientation: orientation, alpha: alphaBytes)
}

/// Encodes interleaved 8-bit samples (1 channel → gray PNG, 3 → RGB) with libpng's simplified writer,
/// in one pass into a buffer of `pngSizeBound` bytes. (Asking libpng for the size first, with a
/// nil buffer, compresses the whole image once just to count the bytes: zlib was 36% of a warm
/// `detect` of yolov3-tiny with its annotated PNG, half of it spent on that count.)
func encodePNG(_ pixels: [UInt8], width: Int, height: Int, channels: Int, path: String) throws -> [UInt8] {
    /// One write into a buffer of `capacity` bytes: the encoded bytes, or nil with libpng's
    /// message and in `needed` the size it asked for.
    func write(capacity: Int, needed: inout Int) -> (bytes: [UInt8]?, message: String) {
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        image.width = png_uint_32(width)
        image.height = png_uint_32(height)
        image.format = channels == 1 ? 0 : UInt32(PNG_FORMAT_FLAG_COLOR) // PNG_FORMAT_GRAY / PNG_FORMAT_RGB
        var size = png_alloc_size_t(capacity), written: Int32 = 0
        // Uninitialised: the pages past the encoded bytes are never touched.
        let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            written = pixels.withUnsafeBytes {
                png_image_write_to_memory(&image, buffer.baseAddress, &size, 0, $0.baseAddress, 0, nil)
            }
            count = written != 0 ? min(Int(size), capacity) : 0
        }
        let message = pngMessage(&image)
        png_image_free(&image)
        needed = Int(size)
        return (written != 0 && size > 0 ? bytes : nil, message)
    }
    let bound = pngSizeBound(width: width, height: height, channels: channels)
    var needed = 0
    var result = write(capacity: bound, needed: &needed)
    if result.bytes == nil, needed > bound {
        // A zlib that compresses worse than zlib's bound: libpng reported the size it needs.
        result = write(capacity: needed, needed: &needed)
    }
    guard let bytes = result.bytes else {
        throw ImageError.writeFailed(path: path, reason: "PNG encoding failed: \(result.message)")
    }
    return bytes
}

/// libpng's `PNG_IMAGE_PNG_SIZE_MAX` for an 8-bit gray or RGB image (no colour map, no alpha):
/// the signature and the IHDR, gAMA, cHRM and IEND chunks, an IDAT chunk header per
/// `PNG_ZBUF_SIZE` (8192) bytes, and zlib's bound on deflating the filtered rows
/// (`PNG_ZLIB_MAX_SIZE` of `PNG_IMAGE_DATA_SIZE`: each row's samples and its filter byte).
func pngSizeBound(width: Int, height: Int, channels: Int) -> Int {
    let data = channels * width * height + height
    let compressed = data + (data + 7) >> 3 + (data + 63) >> 6 + 11
    return 8 + 25 + 16 + 44 + 12 + 12 + 12 * (compressed / 8192) + compressed
}

/// libpng's `message` field (a NUL-terminated char[64]) as a String.
private func pngMessage(_ image: inout png_image) -> String {
    withUnsafeBytes(of: &image.message) { raw in
        let bytes = raw.prefix(while: { $0 != 0 })
        return bytes.isEmpty ? "unknown libpng error" : String(decoding: bytes, as: UTF8.self)
    }
}
