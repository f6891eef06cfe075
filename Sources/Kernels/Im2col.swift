/// darknet's `im2col_cpu`: unfolds a `channels × height × width` image into the
/// `(channels·size·size) × (outHeight·outWidth)` matrix a convolution multiplies by its
/// weights. Pixels outside the image (the `pad` border) are 0.
///
/// AlexeyAB's `im2col_cpu_ext` generalises it: `strideY` (default `stride`) steps the rows,
/// and `dilation` spaces the taps: tap `(ky, kx)` of output `(oy, ox)` reads pixel
/// `(oy·strideY + ky·dilation − pad, ox·stride + kx·dilation − pad)`, and
/// `outHeight = (height + 2·pad − dilation·(size − 1) − 1) / strideY + 1`.
package enum Im2col {
    /// The fast path: for each matrix row (channel, ky, kx) the in-image run of output
    /// columns is computed once, then copied without per-element bounds checks (a block
    /// copy for stride 1, a strided loop otherwise); the rows are split across up to `threads`
    /// workers when the matrix is large. Same values as `unfoldReference`, bit for bit.
    ///
    /// `outputRows` limits the columns to those output rows (a block of the matrix, whose
    /// rows are then `outputRows.count · outWidth` long): convolutions unfold large images
    /// block by block so the workspace stays small.
    ///
    /// Batches: channel `c`'s plane is read at `image + c·channelStride` (default
    /// `height·width`; `batch · height·width` in channel-major batches) and matrix row
    /// `r` is written at `columns + r·rowPitch` (default: the row's length), so the images of a
    /// batch unfold side by side into one matrix that one `GEMM.multiply` (with `segments`) multiplies.
    package static func unfold(_ image: UnsafePointer<Float>, channels: Int, height: Int, width: Int,
                               size: Int, stride: Int, pad: Int, strideY: Int? = nil, dilation: Int = 1,
                               outputRows: Range<Int>? = nil, channelStride: Int? = nil, rowPitch: Int? = nil,
                               into columns: UnsafeMutablePointer<Float>, threads: Int) {
        unfoldElements(image, padding: 0, channels: channels, height: height, width: width, size: size, stride: stride,
                       pad: pad, strideY: strideY, dilation: dilation, outputRows: outputRows, channelStride: channelStride,
                       rowPitch: rowPitch, into: columns, threads: threads)
    }

    /// `unfold` of a quantized image (`Int8Convolution`): the same matrix of bytes, whose
    /// pixels outside the image are `padding` (the quantized zero).
    package static func unfold(_ image: UnsafePointer<Int8>, padding: Int8, channels: Int, height: Int, width: Int,
                               size: Int, stride: Int, pad: Int, strideY: Int? = nil, dilation: Int = 1,
                               outputRows: Range<Int>? = nil, channelStride: Int? = nil, rowPitch: Int? = nil,
                               into columns: UnsafeMutablePointer<Int8>, threads: Int) {
        unfoldElements(image, padding: padding, channels: channels, height: height, width: width, size: size,
                       stride: stride, pad: pad, strideY: strideY, dilation: dilation, outputRows: outputRows,
                       channelStride: channelStride, rowPitch: rowPitch, into: columns, threads: threads)
    }

    /// Both `unfold`s: elements of any type, `padding` outside the image.
    @inline(__always)
    private static func unfoldElements<Element>(_ image: UnsafePointer<Element>, padding: Element, channels: Int,
                                                height: Int, width: Int, size: Int, stride: Int, pad: Int, strideY: Int?,
                                                dilation: Int, outputRows: Range<Int>?, channelStride: Int?, rowPitch: Int?,
                                                into columns: UnsafeMutablePointer<Element>, threads: Int) {
        let strideY = strideY ?? stride
        let extent = dilation * (size - 1) + 1
        let outHeight = (height + 2 * pad - extent) / strideY + 1
        let outWidth = (width + 2 * pad - extent) / stride + 1
        let block = outputRows ?? 0..<outHeight
        let rows = channels * size * size
        let rowLength = block.count * outWidth
        let plane = channelStride ?? height * width, pitch = rowPitch ?? rowLength
        Parallel.forChunks(of: rows, work: rows * rowLength, threads: threads) { range in
            unfoldMatrixRows(range, image, padding: padding, height: height, width: width, size: size, stride: stride,
                             strideY: strideY, pad: pad, dilation: dilation, outputRows: block, outWidth: outWidth,
                             channelStride: plane, rowPitch: pitch, into: columns)
        }
    }

    /// `unfold` of the output rows `outputRows` on the calling thread alone (a worker unfolding
    /// its own band, `Im2colBands`), into a matrix whose rows are `outputRows.count · outWidth` long.
    static func unfoldSerially(_ image: UnsafePointer<Float>, channels: Int, height: Int, width: Int,
                               size: Int, stride: Int, pad: Int, strideY: Int, dilation: Int,
                               outputRows: Range<Int>, channelStride: Int, into columns: UnsafeMutablePointer<Float>) {
        let outWidth = (width + 2 * pad - dilation * (size - 1) - 1) / stride + 1
        unfoldMatrixRows(0..<(channels * size * size), image, padding: 0, height: height, width: width, size: size, stride: stride,
                         strideY: strideY, pad: pad, dilation: dilation, outputRows: outputRows, outWidth: outWidth,
                         channelStride: channelStride, rowPitch: outputRows.count * outWidth, into: columns)
    }

    /// Matrix rows `rows` (each a channel and tap `(ky, kx)`), row `r` written at `columns + r·rowPitch`.
    @inline(__always)
    private static func unfoldMatrixRows<Element>(_ rows: Range<Int>, _ image: UnsafePointer<Element>, padding: Element,
                                                  height: Int, width: Int, size: Int, stride: Int, strideY: Int, pad: Int,
                                                  dilation: Int, outputRows: Range<Int>, outWidth: Int, channelStride: Int,
                                                  rowPitch: Int, into columns: UnsafeMutablePointer<Element>) {
        for row in rows {
            let kx = row % size
            let ky = (row / size) % size
            let channel = row / size / size
            unfoldRow(plane: image + channel * channelStride, padding: padding, height: height, width: width,
                      kx: kx * dilation, ky: ky * dilation, stride: stride, strideY: strideY, pad: pad,
                      outputRows: outputRows, outWidth: outWidth, into: columns + row * rowPitch)
        }
    }

    /// One matrix row: every output position's pixel at kernel tap offset (`ky`, `kx`) (the
    /// tap index times the dilation). Input column of output column `ox` is
    /// `x = kx + ox·stride − pad`; it lies in `0..<width` exactly for `ox` in
    /// `firstValid..<lastValid` below. Row `oy` reads input row `ky + oy·strideY − pad`.
    @inline(__always)
    private static func unfoldRow<Element>(plane: UnsafePointer<Element>, padding: Element, height: Int, width: Int,
                                           kx: Int, ky: Int, stride: Int, strideY: Int, pad: Int, outputRows: Range<Int>,
                                           outWidth: Int, into out: UnsafeMutablePointer<Element>) {
        // x ≥ 0  ⇔  ox ≥ ceil((pad − kx) / stride);  x < width  ⇔  ox ≤ (width − 1 + pad − kx) / stride.
        let firstValid = pad > kx ? min(outWidth, (pad - kx + stride - 1) / stride) : 0
        let lastX = width - 1 + pad - kx
        let lastValid = lastX < 0 ? firstValid : max(firstValid, min(outWidth, lastX / stride + 1))
        let runLength = lastValid - firstValid
        let firstX = kx + firstValid * stride - pad
        for oy in outputRows {
            let y = ky + oy * strideY - pad
            let outRow = out + (oy - outputRows.lowerBound) * outWidth
            if y < 0 || y >= height || runLength == 0 {
                outRow.update(repeating: padding, count: outWidth)
                continue
            }
            if firstValid > 0 { outRow.update(repeating: padding, count: firstValid) }
            let source = plane + y * width + firstX
            let target = outRow + firstValid
            if stride == 1 && runLength >= 64 {
                target.update(from: source, count: runLength)
            } else if stride == 1 {
                // Short rows (yolov3's 13×13 layers): a plain loop, since a memmove call per
                // row of 13 floats costs more than the copy (3× the unfold's time, docs/bench-log.md).
                for i in 0..<runLength { target[i] = source[i] }
            } else if stride == 2 {
                // yolov3's downsampling layers; a constant stride lets the copy vectorise.
                for i in 0..<runLength { target[i] = source[2 * i] }
            } else {
                for i in 0..<runLength { target[i] = source[i * stride] }
            }
            if lastValid < outWidth { (outRow + lastValid).update(repeating: padding, count: outWidth - lastValid) }
        }
    }

    /// The naive unfold, element by element from the definition: the reference `unfold` is tested against.
    package static func unfoldReference(_ image: UnsafePointer<Float>, channels: Int, height: Int, width: Int,
                                        size: Int, stride: Int, pad: Int, strideY: Int? = nil, dilation: Int = 1,
                                        into columns: UnsafeMutablePointer<Float>) {
        let strideY = strideY ?? stride
        let outHeight = (height + 2 * pad - dilation * (size - 1) - 1) / strideY + 1
        let outWidth = (width + 2 * pad - dilation * (size - 1) - 1) / stride + 1
        for row in 0..<(channels * size * size) {
            let kx = row % size
            let ky = (row / size) % size
            let channel = row / size / size
            for oy in 0..<outHeight {
                for ox in 0..<outWidth {
                    let y = ky * dilation + oy * strideY - pad
                    let x = kx * dilation + ox * stride - pad
                    let inside = y >= 0 && y < height && x >= 0 && x < width
                    columns[(row * outHeight + oy) * outWidth + ox] = inside ? image[(channel * height + y) * width + x] : 0
                }
            }
        }
    }
}
