extension Image {
    /// darknet `letterbox_image(im, w, h)`: output `channels × h × w`.
    ///
    /// Keeps the aspect ratio with darknet's integer arithmetic:
    /// `if ((float)w/im.w < (float)h/im.h) { new_w = w; new_h = (im.h*w)/im.w; }
    ///  else { new_h = h; new_w = (im.w*h)/im.h; }`,
    /// resizes with `resized(width: new_w, height: new_h)` (`resize_image`), fills the canvas with
    /// 0.5 and embeds the resized image at ((w - new_w) / 2, (h - new_h) / 2) (C integer
    /// division), skipping samples that fall outside the canvas as `set_pixel` does.
    public func letterboxed(width w: Int, height h: Int) -> Image {
        guard w > 0, h > 0, width > 0, height > 0 else {
            return Image(width: max(0, w), height: max(0, h), channels: channels, fill: 0.5)
        }
        let newW: Int, newH: Int
        if Float(w) / Float(width) < Float(h) / Float(height) {
            newW = w
            newH = (height * w) / width
        } else {
            newH = h
            newW = (width * h) / height
        }
        var boxed = Image(width: w, height: h, channels: channels, fill: 0.5)
        guard newW > 0, newH > 0 else { return boxed }
        let resized = self.resized(width: newW, height: newH)
        boxed.embed(resized, x: (w - newW) / 2, y: (h - newH) / 2)
        return boxed
    }

    /// darknet `embed_image(source, dest, dx, dy)`: copies `source` with its top-left corner at
    /// (x, y); samples landing outside this image (or channels it lacks) are skipped.
    public mutating func embed(_ source: Image, x dx: Int, y dy: Int) {
        let x0 = max(0, dx), x1 = min(width, dx + source.width)
        let y0 = max(0, dy), y1 = min(height, dy + source.height)
        guard x0 < x1, y0 < y1 else { return }
        let nc = min(channels, source.channels)
        let dw = width, dh = height, sw = source.width, sh = source.height
        source.data.withUnsafeBufferPointer { src in
            data.withUnsafeMutableBufferPointer { dst in
                for k in 0..<nc {
                    for y in y0..<y1 {
                        let s = k * sw * sh + (y - dy) * sw - dx
                        let d = k * dw * dh + y * dw
                        for x in x0..<x1 { dst[d + x] = src[s + x] }
                    }
                }
            }
        }
    }
}
