/// darknet's `image` (darknet.h: `struct { int w, h, c; float *data; }`).
///
/// Planar CHW `Float` samples, normally in [0, 1]: `data.count == channels * height * width`
/// and the sample of channel `c` at column `x`, row `y` is `data[c*height*width + y*width + x]`.
/// Three-channel images are RGB (darknet converts OpenCV's BGR to RGB in `mat_to_image`).
public struct Image: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var channels: Int
    public var data: [Float]

    /// Wraps `data` (CHW). Precondition: sizes are non-negative and
    /// `data.count == channels * height * width` (a programming error otherwise, never input).
    public init(width: Int, height: Int, channels: Int, data: [Float]) {
        precondition(width >= 0 && height >= 0 && channels >= 0, "negative image size")
        precondition(data.count == width * height * channels,
                     "Image data has \(data.count) samples, expected \(channels)x\(height)x\(width)")
        self.width = width
        self.height = height
        self.channels = channels
        self.data = data
    }

    /// An image with every sample set to `fill` (darknet `make_image` + `fill_image`).
    public init(width: Int, height: Int, channels: Int, fill: Float) {
        precondition(width >= 0 && height >= 0 && channels >= 0, "negative image size")
        self.init(width: width, height: height, channels: channels,
                  data: [Float](repeating: fill, count: width * height * channels))
    }

    /// Largest `width * height` the decoders accept by default before allocating (100
    /// megapixels); each decoding initializer takes a `maxPixels` to raise or lower it.
    public static let defaultMaxPixels = 100_000_000

    /// Sample at (x, y) of channel c (no bounds check beyond the array's own).
    @inlinable
    public subscript(x: Int, y: Int, channel: Int) -> Float {
        get { data[channel * width * height + y * width + x] }
        set { data[channel * width * height + y * width + x] = newValue }
    }
}
