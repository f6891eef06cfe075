/// darknet's `im2col_cpu`: unfolds a `channels × height × width` image into the
/// `(channels·size·size) × (outHeight·outWidth)` matrix a convolution multiplies by its
/// weights. Pixels outside the image (the `pad` border) are 0.
enum Im2col {
    static func unfold(_ image: UnsafePointer<Float>, channels: Int, height: Int, width: Int,
                       size: Int, stride: Int, pad: Int,
                       into columns: UnsafeMutablePointer<Float>) {
        let outHeight = (height + 2 * pad - size) / stride + 1
        let outWidth = (width + 2 * pad - size) / stride + 1
        let rows = channels * size * size
        for row in 0..<rows {
            let kx = row % size
            let ky = (row / size) % size
            let channel = row / size / size
            let plane = image + channel * height * width
            let out = columns + row * outHeight * outWidth
            for oy in 0..<outHeight {
                let y = ky + oy * stride - pad
                let outRow = out + oy * outWidth
                if y < 0 || y >= height {
                    outRow.update(repeating: 0, count: outWidth)
                    continue
                }
                let source = plane + y * width
                if stride == 1 {
                    // x = kx + ox - pad: copy the in-bounds run, zero the borders.
                    let firstValid = max(0, pad - kx)
                    let lastValid = min(outWidth, width + pad - kx)  // exclusive
                    if firstValid >= lastValid {
                        outRow.update(repeating: 0, count: outWidth)
                        continue
                    }
                    if firstValid > 0 { outRow.update(repeating: 0, count: firstValid) }
                    (outRow + firstValid).update(from: source + (kx + firstValid - pad), count: lastValid - firstValid)
                    if lastValid < outWidth { (outRow + lastValid).update(repeating: 0, count: outWidth - lastValid) }
                } else {
                    for ox in 0..<outWidth {
                        let x = kx + ox * stride - pad
                        outRow[ox] = (x >= 0 && x < width) ? source[x] : 0
                    }
                }
            }
        }
    }
}
