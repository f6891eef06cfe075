/// Images in memory as the kernels read them: image `b`'s channel `c` is a contiguous
/// `height × width` plane at `base + b·imageStride + c·channelStride`. One CHW image has
/// `channelStride = height·width`; a network's channel-major batch (`C × batch × H × W`) has
/// `imageStride = height·width` and `channelStride = batch·height·width`.
package struct TensorView {
    package var base: UnsafePointer<Float>
    package var channels, height, width: Int
    package var imageStride, channelStride: Int

    package init(_ base: UnsafePointer<Float>, channels: Int, height: Int, width: Int, images: Int = 1) {
        self.base = base
        (self.channels, self.height, self.width) = (channels, height, width)
        (imageStride, channelStride) = (height * width, images * height * width)
    }

    /// Channel `c`'s plane of image `b`.
    @inline(__always)
    package func plane(image b: Int = 0, channel c: Int) -> UnsafePointer<Float> { base + b * imageStride + c * channelStride }
}

/// A `TensorView` that is written: a layer's output, or the pooled output a convolution fills.
package struct MutableTensorView {
    package var base: UnsafeMutablePointer<Float>
    package var channels, height, width: Int
    package var imageStride, channelStride: Int

    package init(_ base: UnsafeMutablePointer<Float>, channels: Int, height: Int, width: Int, images: Int = 1) {
        self.base = base
        (self.channels, self.height, self.width) = (channels, height, width)
        (imageStride, channelStride) = (height * width, images * height * width)
    }

    @inline(__always)
    package func plane(image b: Int = 0, channel c: Int) -> UnsafeMutablePointer<Float> { base + b * imageStride + c * channelStride }

    /// The same floats, read-only.
    package var view: TensorView {
        var view = TensorView(base, channels: channels, height: height, width: width)
        (view.imageStride, view.channelStride) = (imageStride, channelStride)
        return view
    }
}
