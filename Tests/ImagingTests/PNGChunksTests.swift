import XCTest
@testable import Imaging

final class PNGChunksTests: XCTestCase {
    /// The standard CRC-32 check value: crc32("123456789") = 0xCBF43926.
    func testCRC32CheckValue() {
        XCTAssertEqual(crc32(Array("123456789".utf8)), 0xCBF4_3926)
    }

    func testKeepsOnlyCriticalChunksAndExif() throws {
        let prepared = try preparePNG(try Fixtures.bytes("rgb8_exif6.png"), name: "x.png", maxPixels: Image.defaultMaxPixels)
        XCTAssertEqual(prepared.exif?.count, 26)
        XCTAssertEqual(types(prepared.stream), ["IHDR", "IDAT", "IEND"])
        let palette = try preparePNG(try Fixtures.bytes("palette8.png"), name: "p.png", maxPixels: Image.defaultMaxPixels)
        XCTAssertEqual(types(palette.stream), ["IHDR", "PLTE", "IDAT", "IEND"])   // tRNS dropped
        let gamma = try preparePNG(try Fixtures.bytes("rgb8_gamma1.png"), name: "g.png", maxPixels: Image.defaultMaxPixels)
        XCTAssertEqual(types(gamma.stream), ["IHDR", "IDAT", "IEND"])              // gAMA, cHRM dropped
    }

    func testGrayAlpha16RelabelledAsRGBA8WithValidCRC() throws {
        let prepared = try preparePNG(try Fixtures.bytes("gray_alpha16.png"), name: "ga.png", maxPixels: Image.defaultMaxPixels)
        XCTAssertTrue(prepared.relabelledGrayAlpha16)
        XCTAssertEqual(prepared.stream[24], 8)
        XCTAssertEqual(prepared.stream[25], 6)
        let crc = crc32(prepared.stream[12..<29])
        XCTAssertEqual(Array(prepared.stream[29..<33]), [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
    }

    func testFirstChunkMustBeIHDR() {
        let bytes = pngSignature + [0, 0, 0, 0] + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]
        XCTAssertThrowsError(try preparePNG(bytes, name: "n.png", maxPixels: Image.defaultMaxPixels)) { error in
            XCTAssertEqual(error as? ImageError, .corruptPNG(name: "n.png", message: "first chunk is 'IEND', expected a 13-byte IHDR"))
        }
    }

    private func types(_ stream: [UInt8]) -> [String] {
        var o = 8, out: [String] = []
        while o + 8 <= stream.count {
            let length = Int(stream[o]) << 24 | Int(stream[o + 1]) << 16 | Int(stream[o + 2]) << 8 | Int(stream[o + 3])
            out.append(String(decoding: stream[(o + 4)..<(o + 8)], as: UTF8.self))
            o += 12 + length
        }
        return out
    }
}
