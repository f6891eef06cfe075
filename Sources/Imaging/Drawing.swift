extension Image {
    /// darknet `draw_box_width(a, x1, y1, x2, y2, w, r, g, b)`: `lineWidth` nested rectangles,
    /// the i-th being `draw_box(a, x1+i, y1+i, x2-i, y2-i, r, g, b)`. Each `draw_box` clamps every
    /// coordinate into the image (`< 0 → 0`, `>= size → size-1`) and sets the top and bottom
    /// rows from x1 to x2 and the left and right columns from y1 to y2 (empty when x1 > x2 or
    /// y1 > y2). Channels 0, 1, 2 get red, green, blue; a 1-channel image only gets red.
    public mutating func drawBox(left: Int, top: Int, right: Int, bottom: Int, lineWidth: Int,
                                 red: Float, green: Float, blue: Float) {
        guard width > 0, height > 0 else { return }
        for i in 0..<max(0, lineWidth) {
            drawOneBox(x1: left + i, y1: top + i, x2: right - i, y2: bottom - i, color: [red, green, blue])
        }
    }

    private mutating func drawOneBox(x1: Int, y1: Int, x2: Int, y2: Int, color: [Float]) {
        func clamp(_ v: Int, _ size: Int) -> Int { v < 0 ? 0 : v >= size ? size - 1 : v }
        let x1 = clamp(x1, width), x2 = clamp(x2, width)
        let y1 = clamp(y1, height), y2 = clamp(y2, height)
        let w = width, plane = width * height
        data.withUnsafeMutableBufferPointer { d in
            for k in 0..<min(3, channels) {
                let v = color[k], base = k * plane
                if x1 <= x2 {
                    for x in x1...x2 { d[base + y1 * w + x] = v; d[base + y2 * w + x] = v }
                }
                if y1 <= y2 {
                    for y in y1...y2 { d[base + y * w + x1] = v; d[base + y * w + x2] = v }
                }
            }
        }
    }

    /// Label placement like darknet's `draw_label(a, r, c, label, rgb)` called with
    /// `r = top + width` (box top plus line width) and `c = left`: the label goes above row
    /// `top` when it fits (`if (r - h >= 0) r = r - h`), otherwise it starts at `top`, and it is
    /// clipped at the right and bottom edges.
    ///
    /// The label is our own 5×7 bitmap font (see `BitmapFont`) scaled by `scale`, with a border
    /// as darknet's `border_image(label, label.h * .25)`: a filled rectangle in the box colour
    /// with the text in black (darknet multiplies the colour by its black-on-white glyphs).
    /// Default `scale` follows darknet's glyph size choice `(int)(im.h * .03) / 10`, capped at 7,
    /// plus 1. Characters outside printable ASCII are drawn as '?'.
    public mutating func drawLabel(_ text: String, left: Int, top: Int, red: Float, green: Float, blue: Float,
                                   scale: Int? = nil) {
        guard width > 0, height > 0, !text.isEmpty else { return }
        let s = max(1, scale ?? (min(7, Int(Float(height) * 0.03) / 10) + 1))
        let mask = BitmapFont.render(text, scale: s)
        let border = Int(Float(mask.height) * 0.25)
        let labelW = mask.width + 2 * border, labelH = mask.height + 2 * border
        var r = top
        if r - labelH >= 0 { r -= labelH }
        let c = left
        let color = [red, green, blue]
        let w = width, plane = width * height
        data.withUnsafeMutableBufferPointer { d in
            for j in 0..<labelH where j + r >= 0 && j + r < height {
                for i in 0..<labelW where i + c >= 0 && i + c < w {
                    let mx = i - border, my = j - border
                    let ink = mx >= 0 && my >= 0 && mx < mask.width && my < mask.height && mask.bits[my * mask.width + mx]
                    for k in 0..<min(3, channels) {
                        d[k * plane + (j + r) * w + i + c] = ink ? 0 : color[k]
                    }
                }
            }
        }
    }
}
