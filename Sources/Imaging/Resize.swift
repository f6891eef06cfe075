extension Image {
    /// darknet `resize_image(im, w, h)`: two-pass bilinear resampling, output `channels × h × w`.
    ///
    /// Pass 1 resamples every source row horizontally into a `channels × height × w` buffer with
    /// `w_scale = (float)(im.w - 1) / (w - 1)`, `sx = c * w_scale`, `ix = (int)sx`,
    /// `dx = sx - ix`, `val = (1 - dx) * p[ix] + dx * p[ix + 1]`, and the last column (or every
    /// column when the source is 1 pixel wide) copied from the source's last column.
    /// Pass 2 resamples vertically with `h_scale`, first storing `(1 - dy) * part[iy]` and then,
    /// except on the last output row or for a 1-pixel-high source, adding `dy * part[iy + 1]`.
    /// The Float operations are done in the same order (no fused multiply-add), so the result is
    /// bit-identical to darknet's.
    ///
    /// Where darknet reads one past the row (only when rounding makes `ix + 1 == im.w` with
    /// `dx == 0`, so the term is 0) the index is clamped. For `height == 1` darknet computes
    /// `0 * inf` (NaN) and its behaviour is undefined; here that row is source row 0.
    /// `width` and `height` must be positive (returns an empty image otherwise).
    public func resized(width w: Int, height h: Int) -> Image {
        guard w > 0, h > 0, width > 0, height > 0, channels > 0 else {
            return Image(width: max(0, w), height: max(0, h), channels: channels, fill: 0)
        }
        let srcW = width, srcH = height, nc = channels
        let wScale = Float(srcW - 1) / Float(w - 1)
        let hScale = Float(srcH - 1) / Float(h - 1)

        // Pass 1: horizontal. Column taps are the same for every row: compute them once.
        var taps = [Int](repeating: 0, count: w)
        var fracs = [Float](repeating: 0, count: w)
        for c in 0..<w {
            if c == w - 1 || srcW == 1 {
                taps[c] = srcW - 1
                fracs[c] = .nan          // marks "copy the last column"
            } else {
                let sx = Float(c) * wScale
                let ix = Int(sx)
                taps[c] = ix
                fracs[c] = sx - Float(ix)
            }
        }
        var part = [Float](repeating: 0, count: nc * srcH * w)
        data.withUnsafeBufferPointer { src in
            part.withUnsafeMutableBufferPointer { dst in
                taps.withUnsafeBufferPointer { taps in
                    fracs.withUnsafeBufferPointer { fracs in
                        for row in 0..<(nc * srcH) {
                            let s = row * srcW, d = row * w
                            for c in 0..<w {
                                let ix = taps[c], dx = fracs[c]
                                if dx.isNaN {
                                    dst[d + c] = src[s + ix]
                                } else {
                                    let next = ix + 1 < srcW ? ix + 1 : ix
                                    let a = (1 - dx) * src[s + ix]
                                    let b = dx * src[s + next]
                                    dst[d + c] = a + b
                                }
                            }
                        }
                    }
                }
            }
        }

        // Pass 2: vertical.
        var out = [Float](repeating: 0, count: nc * h * w)
        part.withUnsafeBufferPointer { part in
            out.withUnsafeMutableBufferPointer { dst in
                for k in 0..<nc {
                    let partPlane = k * srcH * w, outPlane = k * h * w
                    for r in 0..<h {
                        let sy = h == 1 ? 0 : Float(r) * hScale
                        let iy = Int(sy)
                        let dy = sy - Float(iy)
                        let top = partPlane + iy * w, o = outPlane + r * w
                        let wTop = 1 - dy
                        for c in 0..<w { dst[o + c] = wTop * part[top + c] }
                        if r == h - 1 || srcH == 1 { continue }
                        let below = partPlane + min(iy + 1, srcH - 1) * w
                        for c in 0..<w { dst[o + c] += dy * part[below + c] }
                    }
                }
            }
        }
        return Image(width: w, height: h, channels: nc, data: out)
    }
}
