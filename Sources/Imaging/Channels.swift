/// Images of 1, 2 or 4 channels, converted as AlexeyAB's darknet loads them for a `[net]`
/// whose `channels` is not 3: `load_image_stb(path, net.c)`, i.e. stb_image's
/// `stbi_load(path, &w, &h, &n, req_comp = net.c)` and then `byte / 255.` per sample.
///
/// stb_image's rules (`stbi__convert_format`, `stbi__compute_y`):
/// - grey is `(r·77 + g·150 + b·29) >> 8` on 8-bit values (the weights add up to 256, so a
///   grey pixel stays itself);
/// - a JPEG coded as YCbCr (or grey) asked for 1 or 2 components gives its decoded Y plane
///   itself, not the formula on the RGB it would decode to; an RGB-coded JPEG (Adobe
///   transform 0) and a CMYK one are decoded to RGB and then take the formula;
/// - 2 channels are grey and alpha, 4 are RGB and alpha; alpha is 255 when the file has none;
///   grey to RGB is replicated, and alpha is dropped without compositing.
///
/// Where this differs from stb_image (said so that nobody has to find out): the EXIF
/// orientation is applied as for 3-channel images (stb ignores it; AlexeyAB's OpenCV build
/// applies it); a PNG's `tRNS` transparency is read as opaque (only the alpha of grey+alpha
/// and RGBA PNGs is kept); a 16-bit colour PNG takes the formula on its high bytes, where stb
/// takes it on the 16-bit samples before dropping the low byte, so its grey can differ by one
/// level; a CMYK JPEG is first converted to RGB as OpenCV converts it.
extension Image {
    /// Decodes JPEG or PNG bytes into `channels` channels (1...4) as `stbi_load(…, channels)`
    /// does (see above): 3 is exactly `init(decoding:name:maxPixels:)`. Throws `ImageError`
    /// naming `name`; `unsupportedChannels` outside 1...4 (stb_image has no such request).
    public init(decoding bytes: [UInt8], name: String, channels: Int, maxPixels: Int = Image.defaultMaxPixels) throws {
        if channels == 3 {
            try self.init(decoding: bytes, name: name, maxPixels: maxPixels)
            return
        }
        guard (1...4).contains(channels) else { throw ImageError.unsupportedChannels(name: name, channels: channels) }
        if bytes.isEmpty { throw ImageError.empty(name: name) }
        let pixels: RGB8
        if bytes.count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF {
            pixels = try decodeJPEG(bytes, name: name, maxPixels: maxPixels, grey: channels <= 2)
        } else if bytes.starts(with: pngSignature) {
            pixels = try decodePNG(bytes, name: name, maxPixels: maxPixels, alpha: channels == 2 || channels == 4)
        } else {
            throw ImageError.unsupportedFormat(name: name, magic: describeMagic(bytes))
        }
        self = planarImage(from: pixels, channels: channels)
    }

    /// `init(decoding:name:channels:maxPixels:)` of the file at `path` (read as
    /// `init(contentsOf:)` reads it).
    public init(contentsOf path: String, channels: Int, maxPixels: Int = Image.defaultMaxPixels) throws {
        try self.init(decoding: readImageFile(path), name: path, channels: channels, maxPixels: maxPixels)
    }

    /// This image with `channels` channels, by stb_image's rules above, for images already in
    /// memory (a camera frame, an image decoded as RGB): between 1...4 channels, grey is the
    /// formula on each pixel's 8-bit values (samples are taken back to bytes as
    /// `round(255·v)`, clamped, which gives back the byte of every `byte / 255`), alpha is 1,
    /// grey is replicated and alpha dropped. Other counts replicate the last channel or drop
    /// the extra ones. The same count returns the image unchanged.
    ///
    /// A YCbCr JPEG decoded as RGB gives a grey that can differ from its Y plane by a level or
    /// two: decode the file with `init(decoding:name:channels:)` to get the Y plane itself.
    public func converted(toChannels target: Int) -> Image {
        if target == channels { return self }
        let plane = width * height
        guard (1...4).contains(target), (1...4).contains(channels) else {
            var data = [Float](repeating: 0, count: target * plane)
            for c in 0..<target where channels > 0 {
                let source = min(c, channels - 1)
                for i in 0..<plane { data[c * plane + i] = self.data[source * plane + i] }
            }
            return Image(width: width, height: height, channels: target, data: data)
        }
        var data = [Float](repeating: 1, count: target * plane)  // alpha 255 unless copied
        let colour = channels >= 3, wantsColour = target >= 3
        let alpha = channels == 2 || channels == 4 ? channels - 1 : nil
        let alphaTarget = target == 2 || target == 4 ? target - 1 : nil
        self.data.withUnsafeBufferPointer { src in
            data.withUnsafeMutableBufferPointer { dst in
                if colour && !wantsColour {
                    byteToUnit.withUnsafeBufferPointer { lut in
                        for i in 0..<plane {
                            let y = luma(unitToByte(src[i]), unitToByte(src[plane + i]), unitToByte(src[2 * plane + i]))
                            dst[i] = lut[Int(y)]
                        }
                    }
                } else {
                    // Colour to colour copies R G B; grey to grey copies it; grey to colour replicates.
                    for c in 0..<(wantsColour ? 3 : 1) {
                        let source = colour ? c : 0
                        for i in 0..<plane { dst[c * plane + i] = src[source * plane + i] }
                    }
                }
                if let alpha, let alphaTarget {
                    for i in 0..<plane { dst[alphaTarget * plane + i] = src[alpha * plane + i] }
                }
            }
        }
        return Image(width: width, height: height, channels: target, data: data)
    }
}

/// stb_image's `stbi__compute_y`: `(r·77 + g·150 + b·29) >> 8`.
@inline(__always)
func luma(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
    UInt8((Int(r) * 77 + Int(g) * 150 + Int(b) * 29) >> 8)
}

/// The byte a `[0, 1]` sample stands for: `round(255·v)` clamped to 0...255, NaN as 0.
@inline(__always)
func unitToByte(_ v: Float) -> UInt8 {
    if v.isNaN || v <= 0 { return 0 }
    if v >= 1 { return 255 }
    return UInt8((v * 255).rounded())
}

/// Decoded bytes (grey or RGB, with the file's alpha when it was asked for) → `channels`
/// planar float channels by stb_image's rules, with the EXIF orientation applied.
func planarImage(from pixels: RGB8, channels nc: Int) -> Image {
    let n = pixels.width * pixels.height
    let grey = pixels.components == 1
    var bytes = [UInt8](repeating: 255, count: n * nc)
    pixels.bytes.withUnsafeBufferPointer { src in
        bytes.withUnsafeMutableBufferPointer { dst in
            for i in 0..<n {
                let o = i * nc
                if nc <= 2 {
                    dst[o] = grey ? src[i] : luma(src[3 * i], src[3 * i + 1], src[3 * i + 2])
                } else {
                    for k in 0..<3 { dst[o + k] = grey ? src[i] : src[3 * i + k] }
                }
            }
        }
    }
    if nc == 2 || nc == 4, let alpha = pixels.alpha {
        for i in 0..<n { bytes[i * nc + nc - 1] = alpha[i] }
    }
    return planarImage(interleaved: bytes, channels: nc, width: pixels.width, height: pixels.height,
                       orientation: pixels.orientation)
}

/// Interleaved `nc`-channel bytes → planar CHW floats `byte / 255`, oriented as
/// `planarImage(from:)` orients RGB (OpenCV's `ApplyExifOrientation`).
func planarImage(interleaved bytes: [UInt8], channels nc: Int, width sw: Int, height sh: Int, orientation: Int) -> Image {
    let transposed = orientation >= 5 && orientation <= 8
    let w = transposed ? sh : sw, h = transposed ? sw : sh
    let plane = w * h
    var out = [Float](repeating: 0, count: nc * plane)
    bytes.withUnsafeBufferPointer { src in
        byteToUnit.withUnsafeBufferPointer { lut in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    for x in 0..<w {
                        let (sx, sy) = exifSource(x: x, y: y, width: sw, height: sh, orientation: orientation)
                        let s = nc * (sy * sw + sx), d = y * w + x
                        for k in 0..<nc { dst[k * plane + d] = lut[Int(src[s + k])] }
                    }
                }
            }
        }
    }
    return Image(width: w, height: h, channels: nc, data: out)
}
