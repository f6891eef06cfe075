import XCTest
import YOLO

final class TensorDescriptorTests: XCTestCase {
    func testContiguousLayouts() {
        XCTAssertEqual(TensorDescriptor.nchw(channels: 255, height: 13, width: 13),
                       TensorDescriptor(channels: 255, height: 13, width: 13, channelStride: 169, rowStride: 13, columnStride: 1))
        XCTAssertEqual(TensorDescriptor.nhwc(channels: 255, height: 13, width: 13),
                       TensorDescriptor(channels: 255, height: 13, width: 13, channelStride: 1, rowStride: 3315, columnStride: 255))
    }

    func testMultiArrayStyleShapes() throws {
        XCTAssertEqual(try TensorDescriptor(shape: [1, 255, 13, 13], strides: [43095, 169, 13, 1]), .nchw(channels: 255, height: 13, width: 13))
        XCTAssertEqual(try TensorDescriptor(shape: [13, 13, 255], strides: [3315, 255, 1], order: .nhwc), .nhwc(channels: 255, height: 13, width: 13))
        XCTAssertThrowsError(try TensorDescriptor(shape: [2, 255, 13, 13], strides: [43095, 169, 13, 1])) {
            XCTAssertEqual($0 as? DecodeError, .batchNotOne(2))
        }
        XCTAssertThrowsError(try TensorDescriptor(shape: [255, 169], strides: [169, 1])) {
            XCTAssertEqual($0 as? DecodeError, .badShape(shape: [255, 169], strides: [169, 1]))
        }
        XCTAssertThrowsError(try TensorDescriptor(shape: [1, 255, 13, 13], strides: [169, 13, 1]))
    }

    func testValidate() throws {
        let d = TensorDescriptor.nchw(channels: 2, height: 2, width: 2)
        XCTAssertNoThrow(try d.validate(bufferCount: 8))
        XCTAssertThrowsError(try d.validate(bufferCount: 7)) {
            XCTAssertEqual($0 as? DecodeError, .outOfBounds(lastIndex: 7, bufferCount: 7))
        }
        var shifted = d
        shifted.offset = -1
        XCTAssertThrowsError(try shifted.validate(bufferCount: 100)) {
            XCTAssertEqual($0 as? DecodeError, .negativeStride(channelStride: 4, rowStride: 2, columnStride: 1, offset: -1))
        }
        // Zero strides (a broadcast value) are allowed.
        XCTAssertNoThrow(try TensorDescriptor(channels: 3, height: 4, width: 5, channelStride: 0, rowStride: 0, columnStride: 0).validate(bufferCount: 1))
    }
}
