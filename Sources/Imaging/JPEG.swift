import CJPEG

/// JPEG decoding through the TurboJPEG API of libjpeg-turbo: `tjDecompress2` to TJPF_RGB with
/// flags 0 (ISLOW DCT, fancy upsampling) — the same libjpeg-turbo settings OpenCV's `imread`
/// uses, so the pixels equal darknet's `load_image_color` (checked against the oracle).
/// CMYK/YCCK files are decoded to CMYK and converted as OpenCV's `icvCvt_CMYK2BGR_8u_C4C3R`.
/// Unlike OpenCV (which only prints libjpeg warnings), any libjpeg warning — e.g.
/// "Premature end of JPEG file" for a truncated file — is reported as `corruptJPEG`: most
/// warnings mean pixels libjpeg invented (a truncated photo's rest is grey), and detections
/// on them would be a silently wrong answer. Even the harmless "N extraneous bytes before
/// marker" is refused, because TurboJPEG reports only the first warning of a decode: taking
/// that one would also take a file whose later data is cut short.
///
/// `grey`: a YCbCr or grey JPEG is decoded to TJPF_GRAY, which is its Y plane (libjpeg
/// outputs the luma component as it is, as stb_image does for 1 or 2 requested components);
/// RGB, CMYK and YCCK files are decoded to RGB as without it (the caller takes the luma).
func decodeJPEG(_ bytes: [UInt8], name: String, maxPixels: Int, grey: Bool = false) throws -> RGB8 {
    guard let handle = tjInitDecompress() else {
        throw ImageError.corruptJPEG(name: name, message: "cannot create a TurboJPEG decompressor")
    }
    defer { tjDestroy(handle) }
    func failure() -> ImageError {
        let message = tjGetErrorStr2(handle).map { String(cString: $0) } ?? "unknown TurboJPEG error"
        return ImageError.corruptJPEG(name: name, message: message)
    }
    var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
    let header = bytes.withUnsafeBufferPointer { buf in
        tjDecompressHeader3(handle, buf.baseAddress, UInt(buf.count), &width, &height, &subsampling, &colorspace)
    }
    if header != 0 { throw failure() }
    let w = Int(width), h = Int(height)
    // With no frame header before the data runs out, libjpeg-turbo "succeeds" with a 0x0 size.
    if w <= 0 || h <= 0 {
        throw ImageError.corruptJPEG(name: name, message: "no frame header found (truncated, or not a JPEG image)")
    }
    try checkDimensions(width: w, height: h, name: name, maxPixels: maxPixels)
    let cmyk = colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue)
    let luma = grey && (colorspace == Int32(TJCS_YCbCr.rawValue) || colorspace == Int32(TJCS_GRAY.rawValue))
    let components = cmyk ? 4 : luma ? 1 : 3
    let format = cmyk ? TJPF_CMYK : luma ? TJPF_GRAY : TJPF_RGB
    var pixels = [UInt8](repeating: 0, count: w * h * components)
    let rc = bytes.withUnsafeBufferPointer { src in
        pixels.withUnsafeMutableBufferPointer { dst in
            tjDecompress2(handle, src.baseAddress, UInt(src.count), dst.baseAddress,
                          width, 0, height, Int32(format.rawValue), 0)
        }
    }
    if rc != 0 { throw failure() }
    if cmyk { pixels = cmykToRGB(pixels) }
    return RGB8(width: w, height: h, bytes: pixels, orientation: jpegExifOrientation(bytes), components: luma ? 1 : 3)
}

/// OpenCV's CMYK → BGR (grfmt_jpeg / utils.cpp): `c = k - ((255 - c) * k >> 8)` per channel,
/// here written out in RGB order.
func cmykToRGB(_ cmyk: [UInt8]) -> [UInt8] {
    let n = cmyk.count / 4
    var rgb = [UInt8](repeating: 0, count: n * 3)
    for i in 0..<n {
        let k = Int(cmyk[4 * i + 3])
        for j in 0..<3 {
            let c = Int(cmyk[4 * i + j])
            rgb[3 * i + j] = UInt8(truncatingIfNeeded: k - (((255 - c) * k) >> 8))  // Swift's >> binds tighter than *
        }
    }
    return rgb
}

/// Encodes interleaved 8-bit samples (1 channel → grayscale JPEG, 3 → RGB, 4:2:0) at `quality`.
func encodeJPEG(_ pixels: [UInt8], width: Int, height: Int, channels: Int, quality: Int, path: String) throws -> [UInt8] {
    guard let handle = tjInitCompress() else {
        throw ImageError.writeFailed(path: path, reason: "cannot create a TurboJPEG compressor")
    }
    defer { tjDestroy(handle) }
    var output: UnsafeMutablePointer<UInt8>? = nil
    var size: UInt = 0
    let format = channels == 1 ? TJPF_GRAY : TJPF_RGB
    let subsampling = channels == 1 ? TJSAMP_GRAY : TJSAMP_420
    let rc = pixels.withUnsafeBufferPointer { src in
        tjCompress2(handle, src.baseAddress, Int32(width), 0, Int32(height), Int32(format.rawValue),
                    &output, &size, Int32(subsampling.rawValue), Int32(max(1, min(100, quality))), 0)
    }
    defer { if let output { tjFree(output) } }
    guard rc == 0, let output else {
        let message = tjGetErrorStr2(handle).map { String(cString: $0) } ?? "unknown TurboJPEG error"
        throw ImageError.writeFailed(path: path, reason: "JPEG encoding failed: \(message)")
    }
    return [UInt8](UnsafeBufferPointer(start: output, count: Int(size)))
}
