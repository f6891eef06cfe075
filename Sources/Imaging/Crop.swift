extension Image {
    /// The `width` × `height` rectangle whose top-left pixel is (x, y), every channel, as a new
    /// image (darknet's `crop_image` without its zero padding). The rectangle is first
    /// clipped to the image, so a rectangle reaching past an edge gives the part inside it and
    /// one wholly outside gives an empty image (0 × 0); nothing outside is invented.
    public func cropped(x: Int, y: Int, width w: Int, height h: Int) -> Image {
        let x0 = max(0, x), y0 = max(0, y)
        let x1 = min(width, x &+ max(0, w)), y1 = min(height, y &+ max(0, h))
        guard x0 < x1, y0 < y1 else { return Image(width: 0, height: 0, channels: channels, data: []) }
        let cw = x1 - x0, ch = y1 - y0
        var out = [Float](repeating: 0, count: channels * cw * ch)
        data.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for k in 0..<channels {
                    for row in 0..<ch {
                        let s = k * width * height + (y0 + row) * width + x0
                        let d = k * cw * ch + row * cw
                        for i in 0..<cw { dst[d + i] = src[s + i] }
                    }
                }
            }
        }
        return Image(width: cw, height: ch, channels: channels, data: out)
    }
}
