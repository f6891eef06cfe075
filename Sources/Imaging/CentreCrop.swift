extension Image {
    /// AlexeyAB's `predict_classifier` input (`darknet classifier predict`): `resize_min(im,
    /// side)` — the shorter side scaled to `side`, the other in proportion (integer
    /// division: `h·side/w` or `w·side/h`), no resize when the size is already that — then
    /// `crop_image` of `width × height` from the centre, at `((w − width)/2, (h − height)/2)`,
    /// rows and columns past the border repeating the edge (`constrain_int`).
    public func shorterSideResizedAndCentreCropped(side: Int, width targetWidth: Int, height targetHeight: Int) -> Image {
        guard width > 0, height > 0, side > 0, targetWidth > 0, targetHeight > 0 else {
            return Image(width: max(targetWidth, 0), height: max(targetHeight, 0), channels: channels, fill: 0)
        }
        var (w, h) = (width, height)
        if w < h {
            h = h * side / w
            w = side
        } else {
            w = w * side / h
            h = side
        }
        let resized = (w == width && h == height) ? self : self.resized(width: w, height: h)
        let (dx, dy) = ((w - targetWidth) / 2, (h - targetHeight) / 2)
        var out = [Float](repeating: 0, count: channels * targetWidth * targetHeight)
        resized.data.withUnsafeBufferPointer { source in
            for k in 0..<channels {
                for j in 0..<targetHeight {
                    let r = min(max(j + dy, 0), h - 1)
                    for i in 0..<targetWidth {
                        let c = min(max(i + dx, 0), w - 1)
                        out[(k * targetHeight + j) * targetWidth + i] = source[(k * h + r) * w + c]
                    }
                }
            }
        }
        return Image(width: targetWidth, height: targetHeight, channels: channels, data: out)
    }
}
