/// A convolution's shape as the kernels see it (one group's, for grouped convolutions): input
/// `channels × height × width` → `filters × outHeight × outWidth`, a `size × size` kernel whose
/// tap `(ky, kx)` of output `(oy, ox)` reads input `(oy·strideY + ky·dilation − pad·dilation,
/// ox·strideX + kx·dilation − pad·dilation)` (darknet's `im2col_cpu`, AlexeyAB's `_ext`).
package struct ConvolutionGeometry: Sendable, Hashable {
    package var channels, height, width: Int
    package var filters, outHeight, outWidth: Int
    package var size, strideX, strideY, pad, dilation: Int

    package init(channels: Int, height: Int, width: Int, filters: Int, outHeight: Int, outWidth: Int,
                 size: Int, strideX: Int, strideY: Int, pad: Int, dilation: Int = 1) {
        (self.channels, self.height, self.width) = (channels, height, width)
        (self.filters, self.outHeight, self.outWidth) = (filters, outHeight, outWidth)
        (self.size, self.strideX, self.strideY, self.pad, self.dilation) = (size, strideX, strideY, pad, dilation)
    }

    /// Weights per filter, the rows of the im2col matrix: `channels · size²`.
    package var k: Int { channels * size * size }
    /// Outputs per filter plane.
    package var spatial: Int { outHeight * outWidth }
}
