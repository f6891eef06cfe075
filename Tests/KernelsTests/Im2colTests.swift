@testable import Kernels
import TestSupport
import XCTest

/// The fast unfold (valid column run computed once, strided copy, rows split across workers)
/// against the element-by-element reference, bit for bit.
final class Im2colTests: XCTestCase {
    struct Case {
        var channels, height, width, size, stride, pad: Int
        /// AlexeyAB's `stride_y` (nil: `stride`) and `dilation`.
        var strideY: Int? = nil
        var dilation = 1
    }

    static let cases: [Case] = [
        Case(channels: 3, height: 9, width: 11, size: 3, stride: 1, pad: 1),
        Case(channels: 4, height: 9, width: 7, size: 3, stride: 2, pad: 1),    // stride 2, odd sizes
        Case(channels: 2, height: 10, width: 10, size: 5, stride: 3, pad: 0),  // stride 3, no padding
        Case(channels: 2, height: 11, width: 8, size: 3, stride: 3, pad: 2),   // stride 3, padding 2
        Case(channels: 2, height: 7, width: 7, size: 3, stride: 2, pad: 2),    // padding 2: whole border rows/columns zero
        Case(channels: 3, height: 5, width: 1, size: 3, stride: 2, pad: 1),    // width 1
        Case(channels: 2, height: 1, width: 6, size: 3, stride: 1, pad: 1),    // height 1
        Case(channels: 2, height: 3, width: 3, size: 5, stride: 1, pad: 2),    // kernel larger than image
        Case(channels: 2, height: 2, width: 3, size: 5, stride: 2, pad: 2),    // kernel larger than image, stride 2
        Case(channels: 3, height: 6, width: 6, size: 1, stride: 2, pad: 0),    // 1×1 stride 2
        Case(channels: 2, height: 6, width: 4, size: 2, stride: 2, pad: 0),    // even kernel
        Case(channels: 8, height: 64, width: 66, size: 3, stride: 2, pad: 1),  // large: split across workers
        Case(channels: 8, height: 40, width: 40, size: 3, stride: 1, pad: 1),  // large, stride 1 (short rows: a loop)
        Case(channels: 2, height: 5, width: 70, size: 3, stride: 1, pad: 1),   // rows of 64+ floats: a block copy
        Case(channels: 3, height: 9, width: 11, size: 3, stride: 1, pad: 2, dilation: 2),         // dilation 2, "same"
        Case(channels: 2, height: 12, width: 7, size: 3, stride: 2, pad: 3, dilation: 3),         // dilation 3, stride 2
        Case(channels: 2, height: 4, width: 4, size: 3, stride: 1, pad: 2, dilation: 2),          // taps beyond the image
        Case(channels: 3, height: 9, width: 10, size: 3, stride: 2, pad: 1, strideY: 1),          // stride_x 2, stride_y 1
        Case(channels: 2, height: 11, width: 6, size: 3, stride: 1, pad: 1, strideY: 3),          // stride_x 1, stride_y 3
        Case(channels: 8, height: 41, width: 64, size: 3, stride: 2, pad: 2, strideY: 1, dilation: 2), // large, all three
    ]

    func testFastMatchesReference() {
        var generator = SplitMix64(state: 7)
        for threads in [1, 2] {
            for c in Self.cases {
                let extent = c.dilation * (c.size - 1) + 1
                let outHeight = (c.height + 2 * c.pad - extent) / (c.strideY ?? c.stride) + 1
                let outWidth = (c.width + 2 * c.pad - extent) / c.stride + 1
                let count = c.channels * c.size * c.size * outHeight * outWidth
                let image = (0..<(c.channels * c.height * c.width)).map { _ in generator.uniform(-1, 1) }
                var fast = [Float](repeating: .nan, count: count)
                var reference = [Float](repeating: .nan, count: count)
                image.withUnsafeBufferPointer { i in
                    fast.withUnsafeMutableBufferPointer {
                        Im2col.unfold(i.baseAddress!, channels: c.channels, height: c.height, width: c.width,
                                      size: c.size, stride: c.stride, pad: c.pad, strideY: c.strideY, dilation: c.dilation,
                                      into: $0.baseAddress!, threads: threads)
                    }
                    reference.withUnsafeMutableBufferPointer {
                        Im2col.unfoldReference(i.baseAddress!, channels: c.channels, height: c.height, width: c.width,
                                               size: c.size, stride: c.stride, pad: c.pad, strideY: c.strideY,
                                               dilation: c.dilation, into: $0.baseAddress!)
                    }
                }
                XCTAssertFalse(reference.contains { $0.isNaN }, "reference wrote every element: \(c)")
                XCTAssertEqual(fast.map(\.bitPattern), reference.map(\.bitPattern), "\(c), \(threads) threads")
            }
        }
    }

    /// The unfold of quantized bytes (`Int8Convolution`): the same matrix, its border the
    /// padding byte given. Compared through the float reference on the bytes' values + 1000
    /// (never 0, so the reference's zero marks its border).
    func testBytesMatchReference() {
        var generator = SplitMix64(state: 9)
        for threads in [1, 2] {
            for c in Self.cases {
                let extent = c.dilation * (c.size - 1) + 1
                let outHeight = (c.height + 2 * c.pad - extent) / (c.strideY ?? c.stride) + 1
                let outWidth = (c.width + 2 * c.pad - extent) / c.stride + 1
                let count = c.channels * c.size * c.size * outHeight * outWidth
                let image = (0..<(c.channels * c.height * c.width)).map { _ in Int8(truncatingIfNeeded: generator.next()) }
                let shifted = image.map { Float($0) + 1000 }
                var bytes = [Int8](repeating: 99, count: count)
                var reference = [Float](repeating: .nan, count: count)
                image.withUnsafeBufferPointer { i in
                    bytes.withUnsafeMutableBufferPointer {
                        Im2col.unfold(i.baseAddress!, padding: -77, channels: c.channels, height: c.height, width: c.width,
                                      size: c.size, stride: c.stride, pad: c.pad, strideY: c.strideY, dilation: c.dilation,
                                      into: $0.baseAddress!, threads: threads)
                    }
                }
                shifted.withUnsafeBufferPointer { i in
                    reference.withUnsafeMutableBufferPointer {
                        Im2col.unfoldReference(i.baseAddress!, channels: c.channels, height: c.height, width: c.width,
                                               size: c.size, stride: c.stride, pad: c.pad, strideY: c.strideY,
                                               dilation: c.dilation, into: $0.baseAddress!)
                    }
                }
                XCTAssertEqual(bytes, reference.map { $0 == 0 ? -77 : Int8($0 - 1000) }, "\(c), \(threads) threads")
            }
        }
    }
}
