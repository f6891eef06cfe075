import CPNG

/// 16-bit RGBA through libpng's classic API with exactly OpenCV's transforms
/// (`png_set_strip_16`, `png_set_strip_alpha`, `png_set_interlace_handling`).
///
/// The simplified API cannot do this: it only returns 16-bit RGBA premultiplied by alpha
/// (information lost where alpha < 65535) and reduces 16 → 8 bits by rounding, not truncation.
/// The classic API reports errors by longjmp, which Swift cannot catch, so it is only called on
/// a stream that libpng's simplified (setjmp-protected) reader has already decoded completely
/// without error: the same bytes, inflate and unfiltering cannot fail the second time. The read
/// callback never raises an error either (it zero-fills past the end, which cannot happen here).
/// `keepAlpha`: RGBA bytes (alpha's high byte kept) instead of RGB.
func decodeRGBA16Classic(_ png: PNGPrepared, keepAlpha: Bool = false) -> [UInt8]? {
    var reader: png_structp? = png_create_read_struct(PNG_LIBPNG_VER_STRING, nil, nil, nil)
    var info: png_infop? = reader.flatMap { png_create_info_struct($0) }
    defer { png_destroy_read_struct(&reader, &info, nil) }
    guard reader != nil, info != nil else { return nil }
    let w = png.width, h = png.height
    let components = keepAlpha ? 4 : 3
    var rgb = [UInt8](repeating: 0, count: w * h * components)
    png.stream.withUnsafeBufferPointer { stream in
        var state = ClassicReadState(buffer: stream, offset: 0)
        withUnsafeMutablePointer(to: &state) { statePointer in
            png_set_read_fn(reader, statePointer, classicRead)
            png_read_info(reader, info)
            png_set_strip_16(reader)
            if !keepAlpha { png_set_strip_alpha(reader) }
            _ = png_set_interlace_handling(reader)
            png_read_update_info(reader, info)
            rgb.withUnsafeMutableBufferPointer { out in
                guard let base = out.baseAddress else { return }
                var rows: [UnsafeMutablePointer<UInt8>?] = (0..<h).map { base + $0 * w * components }
                rows.withUnsafeMutableBufferPointer { png_read_image(reader, $0.baseAddress) }
            }
        }
    }
    return rgb
}

private struct ClassicReadState {
    var buffer: UnsafeBufferPointer<UInt8>
    var offset: Int
}

private let classicRead: @convention(c) (png_structp?, png_bytep?, Int) -> Void = { reader, out, length in
    guard let reader, let out, let io = png_get_io_ptr(reader) else { return }
    let state = io.assumingMemoryBound(to: ClassicReadState.self)
    let available = max(0, min(length, state.pointee.buffer.count - state.pointee.offset))
    for i in 0..<length {
        out[i] = i < available ? state.pointee.buffer[state.pointee.offset + i] : 0
    }
    state.pointee.offset += available
}
