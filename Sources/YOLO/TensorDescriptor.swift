/// Where the values of one detection head's output sit in a flat buffer: a logical
/// `channels × height × width` tensor (batch 1) and the distance, in elements, between
/// neighbours along each axis.
///
/// - NCHW (darknet, PyTorch, most Core ML conversions): `channelStride = height·width`,
///   `rowStride = width`, `columnStride = 1`.
/// - NHWC (TensorFlow Lite): `rowStride = width·channels`, `columnStride = channels`,
///   `channelStride = 1`.
/// - Anything else (an `MLMultiArray` with padded rows, a transposed view): give `shape` and
///   `strides` as the runtime reports them, with the axis order they are listed in.
///
/// Element `(c, row, col)` is at `offset + c·channelStride + row·rowStride + col·columnStride`.
/// For a YOLO head, channel `n·(5 + classes) + entry` holds entry `entry` (x, y, w, h,
/// objectness, classes...) of anchor slot `n`, as darknet's `entry_index` orders them.
public struct TensorDescriptor: Sendable, Hashable {
    public var channels: Int
    public var height: Int
    public var width: Int
    public var channelStride: Int
    public var rowStride: Int
    public var columnStride: Int
    /// Index of element (0, 0, 0) in the buffer.
    public var offset: Int

    public init(channels: Int, height: Int, width: Int,
                channelStride: Int, rowStride: Int, columnStride: Int, offset: Int = 0) {
        self.channels = channels
        self.height = height
        self.width = width
        self.channelStride = channelStride
        self.rowStride = rowStride
        self.columnStride = columnStride
        self.offset = offset
    }

    /// Contiguous channels-first: `[C][H][W]` (darknet's own layout).
    public static func nchw(channels: Int, height: Int, width: Int) -> TensorDescriptor {
        TensorDescriptor(channels: channels, height: height, width: width,
                         channelStride: height &* width, rowStride: width, columnStride: 1)
    }

    /// Contiguous channels-last: `[H][W][C]`.
    public static func nhwc(channels: Int, height: Int, width: Int) -> TensorDescriptor {
        TensorDescriptor(channels: channels, height: height, width: width,
                         channelStride: 1, rowStride: width &* channels, columnStride: channels)
    }

    /// The order in which `shape` and `strides` list the axes.
    public enum AxisOrder: Sendable, Hashable {
        /// `[N, C, H, W]` or `[C, H, W]`.
        case nchw
        /// `[N, H, W, C]` or `[H, W, C]`.
        case nhwc
    }

    /// From `MLMultiArray`-style `shape` and `strides` (in elements, same length, 3 or 4
    /// axes; with 4 the leading batch axis must be 1). Throws `DecodeError` otherwise.
    public init(shape: [Int], strides: [Int], order: AxisOrder = .nchw) throws(DecodeError) {
        guard shape.count == strides.count, shape.count == 3 || shape.count == 4 else {
            throw .badShape(shape: shape, strides: strides)
        }
        var dims = shape, steps = strides
        if dims.count == 4 {
            if dims[0] != 1 { throw .batchNotOne(dims[0]) }
            dims.removeFirst()
            steps.removeFirst()
        }
        switch order {
        case .nchw:
            self.init(channels: dims[0], height: dims[1], width: dims[2],
                      channelStride: steps[0], rowStride: steps[1], columnStride: steps[2])
        case .nhwc:
            self.init(channels: dims[2], height: dims[0], width: dims[1],
                      channelStride: steps[2], rowStride: steps[0], columnStride: steps[1])
        }
    }

    /// Checks that sizes are positive, strides and offset are not negative, and that every
    /// element lies inside a buffer of `count` elements.
    public func validate(bufferCount count: Int) throws(DecodeError) {
        if channels < 1 || height < 1 || width < 1 {
            throw .nonPositiveDimension(channels: channels, height: height, width: width)
        }
        if channelStride < 0 || rowStride < 0 || columnStride < 0 || offset < 0 {
            throw .negativeStride(channelStride: channelStride, rowStride: rowStride,
                                  columnStride: columnStride, offset: offset)
        }
        // Largest index = offset + (C−1)·cs + (H−1)·rs + (W−1)·ws, computed without overflow.
        var last = offset
        for (extent, stride) in [(channels, channelStride), (height, rowStride), (width, columnStride)] {
            let product = (extent - 1).multipliedReportingOverflow(by: stride)
            let sum = last.addingReportingOverflow(product.partialValue)
            if product.overflow || sum.overflow { throw .outOfBounds(lastIndex: Int.max, bufferCount: count) }
            last = sum.partialValue
        }
        if last >= count { throw .outOfBounds(lastIndex: last, bufferCount: count) }
    }

    /// Buffer index of `(channel, row, column)`; valid after `validate`.
    @inline(__always)
    func index(_ channel: Int, _ row: Int, _ column: Int) -> Int {
        offset + channel * channelStride + row * rowStride + column * columnStride
    }
}
