/// The int8 convolution of a large grid, band by band, each band on one worker: the worker
/// unfolds its band of output rows from the quantized input into its own slice of the
/// workspace (`Im2col.unfold` on bytes), multiplies it by the weights in one single-threaded
/// oneDNN call, and finishes each filter's row of the band (`epilogue`) while the band is in
/// its caches, as `Im2colBands` does for f32. Unfolded whole, a 208×208 layer's matrix is
/// 6 MB of bytes, written and read back through memory (docs/bench-log.md).
///
/// Bits: each element of the output is one integer sum, exact whatever the cut, finished by
/// arithmetic on that element alone; bands are cut by shape.
package enum Int8Bands {
    /// Most workers sharing the bands (each has its own slice of the workspace).
    package static let maximumWorkers = 8
    /// Bytes of one worker's band of the unfolded matrix: half a core's L2.
    package static let bandBytes = 1 << 19
    /// Fewest columns a band's product has (thinner products run well below the GEMM's peak).
    package static let minimumColumns = 512
    /// Bands a layer is cut into at least, while each keeps `minimumColumns`: enough for the
    /// workers to share them evenly.
    package static let minimumBands = 8

    /// Output rows per band for a layer of group shape `g`, or nil when its grid is too small
    /// for bands of `minimumColumns` (or is one band): such a layer is unfolded whole and its
    /// product cut among the workers by filters (`Int8GEMM.multiply`).
    package static func bandRows(_ g: ConvolutionGeometry) -> Int? {
        let fit = bandBytes / max(1, g.k * g.outWidth)
        let fewest = (minimumColumns + g.outWidth - 1) / g.outWidth
        guard fit >= fewest, fit < g.outHeight else { return nil }
        return min(fit, max(fewest, g.outHeight / minimumBands))
    }

    /// Workspace bytes of every worker's band.
    package static func workspaceBytes(_ g: ConvolutionGeometry, bandRows: Int) -> Int {
        maximumWorkers * g.k * bandRows * g.outWidth
    }

    /// Every band of every image: `input` the quantized input of the group (channel `c` of
    /// image `b` at `c·channelStride + b·height·width`), `weights` `filters × k`, the sums
    /// written as `Int32` into `output`'s floats and handed to `epilogue` row by row
    /// (`filter`, start, count).
    package static func forward(_ library: OneDNN.Library, _ g: ConvolutionGeometry, input: UnsafePointer<Int8>, images: Int,
                                channelStride: Int, padding: Int8, weights: UnsafePointer<Int8>, output: MutableTensorView,
                                bandRows: Int, workspace: UnsafeMutablePointer<Int8>, threads: Int,
                                epilogue: Int8GEMM.RowEpilogue) {
        let bands = (g.outHeight + bandRows - 1) / bandRows
        let perWorker = g.k * bandRows * g.outWidth
        Parallel.forWorkers(of: images * bands, work: g.filters * g.k * g.spatial * images, threads: threads,
                            maximumWorkers: maximumWorkers) { worker, items in
            let band = workspace + worker * perWorker
            for item in items {
                let (image, first) = (item / bands, item % bands * bandRows)
                let rows = first..<min(g.outHeight, first + bandRows)
                let columns = rows.count * g.outWidth
                Im2col.unfold(input + image * g.height * g.width, padding: padding, channels: g.channels, height: g.height,
                              width: g.width, size: g.size, stride: g.strideX, pad: g.pad * g.dilation, strideY: g.strideY,
                              dilation: g.dilation, outputRows: rows, channelStride: channelStride, into: band, threads: 1)
                let c = UnsafeMutableRawPointer(output.plane(image: image, channel: 0) + first * g.outWidth)
                library.multiply(m: g.filters, n: columns, k: g.k, a: weights, lda: g.k, b: band, ldb: columns,
                                 c: c.assumingMemoryBound(to: Int32.self), ldc: output.channelStride)
                for filter in 0..<g.filters { epilogue(filter, c + 4 * filter * output.channelStride, columns) }
            }
        }
    }
}
