import XCTest
@testable import Imaging

final class EXIFTests: XCTestCase {
    private func tiff(littleEndian: Bool, orientation: UInt16, type: UInt16 = 3) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func u32(_ v: UInt32) -> [UInt8] { littleEndian ? [0, 1, 2, 3].map { UInt8(v >> (8 * $0) & 0xFF) } : [3, 2, 1, 0].map { UInt8(v >> (8 * $0) & 0xFF) } }
        let head: [UInt8] = littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]
        return head + u16(42) + u32(8) + u16(2)
            + u16(0x010F) + u16(2) + u32(4) + [0x41, 0x42, 0x43, 0]         // Make = "ABC"
            + u16(0x0112) + u16(type) + u32(1) + u16(orientation) + [0, 0]
            + u32(0)
    }

    func testReadsOrientationInBothByteOrders() {
        XCTAssertEqual(exifOrientation(tiff: tiff(littleEndian: true, orientation: 6)[...]), 6)
        XCTAssertEqual(exifOrientation(tiff: tiff(littleEndian: false, orientation: 8)[...]), 8)
    }

    func testInvalidValuesMeanNoRotation() {
        XCTAssertEqual(exifOrientation(tiff: tiff(littleEndian: true, orientation: 9)[...]), 1)
        XCTAssertEqual(exifOrientation(tiff: tiff(littleEndian: true, orientation: 6, type: 4)[...]), 1)
        XCTAssertEqual(exifOrientation(tiff: [0x49, 0x49, 42, 0, 0xFF, 0xFF, 0, 0][...]), 1)   // IFD offset past end
        XCTAssertEqual(exifOrientation(tiff: [][...]), 1)
        // Every truncation of a valid block must be handled without reading out of bounds.
        let valid = tiff(littleEndian: false, orientation: 3)
        for n in 0..<valid.count { _ = exifOrientation(tiff: valid.prefix(n)) }
    }

    func testJPEGAPP1Lookup() throws {
        XCTAssertEqual(jpegExifOrientation(try Fixtures.bytes("pattern_q80_exif5.jpg")), 5)
        XCTAssertEqual(jpegExifOrientation(try Fixtures.bytes("pattern_q80.jpg")), 1)
        XCTAssertEqual(jpegExifOrientation([0xFF, 0xD8, 0xFF, 0xE1, 0xFF]), 1)
    }
}
