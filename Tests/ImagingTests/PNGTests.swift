import XCTest
@testable import Imaging

/// PNG decoding against darknet's `load_image_color` (OpenCV imread) on generated fixtures.
final class PNGTests: XCTestCase {
    private func assertMatchesOracle(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let manifest = try Fixtures.manifest()
        let decode = try XCTUnwrap(manifest["decode"] as? [String: Any])
        let expected = try Fixtures.image(entry: try XCTUnwrap(decode[name] as? [String: Any]))
        let ours = try Image(contentsOf: Fixtures.path(name))
        assertImagesEqual(ours, expected, name, file: file, line: line)
    }

    func testRGB8() throws { try assertMatchesOracle("rgb8.png") }
    func testGray8() throws { try assertMatchesOracle("gray8.png") }
    func testGray1() throws { try assertMatchesOracle("gray1.png") }
    func testGrayAlpha8() throws { try assertMatchesOracle("gray_alpha8.png") }
    func testRGBA8DropsAlphaWithoutCompositing() throws { try assertMatchesOracle("rgba8.png") }
    func testPalette8IgnoresTRNS() throws { try assertMatchesOracle("palette8.png") }
    func testPalette4() throws { try assertMatchesOracle("palette4.png") }
    func testRGB16KeepsHighByte() throws { try assertMatchesOracle("rgb16.png") }
    func testGray16() throws { try assertMatchesOracle("gray16.png") }
    func testGrayAlpha16() throws { try assertMatchesOracle("gray_alpha16.png") }
    func testGammaChunksIgnored8Bit() throws { try assertMatchesOracle("rgb8_gamma1.png") }
    func testGammaChunkIgnored16Bit() throws { try assertMatchesOracle("rgb16_gamma.png") }
    func testInterlaced() throws { try assertMatchesOracle("rgb8_interlaced.png") }
    func testExifOrientationApplied() throws { try assertMatchesOracle("rgb8_exif6.png") }
    func testOnePixelWide() throws { try assertMatchesOracle("rgb8_1x17.png") }
    func testOnePixelHigh() throws { try assertMatchesOracle("rgb8_19x1.png") }

    /// 16-bit RGBA goes through the validated classic-API path (strip_16 + strip_alpha).
    func testRGBA16() throws { try assertMatchesOracle("rgba16.png") }

    func testTruncatedPNGNamesFile() throws {
        let bytes = try Fixtures.bytes("rgb8.png")
        for cut in [9, 20, 33, 60, bytes.count - 13, bytes.count - 1] {
            XCTAssertThrowsError(try Image(decoding: Array(bytes.prefix(cut)), name: "cut.png")) { error in
                guard case ImageError.corruptPNG(let name, _) = error else { return XCTFail("\(cut): \(error)") }
                XCTAssertEqual(name, "cut.png")
                XCTAssertTrue("\(error)".contains("cut.png"))
            }
        }
    }

    func testCorruptIDATReportsLibpngMessage() throws {
        var bytes = try Fixtures.bytes("rgb8.png")
        // Flip a byte inside the IDAT payload: the chunk CRC no longer matches.
        let idat = try XCTUnwrap(findChunk("IDAT", in: bytes))
        bytes[idat + 8 + 10] ^= 0xFF
        XCTAssertThrowsError(try Image(decoding: bytes, name: "bad.png")) { error in
            guard case ImageError.corruptPNG(_, let message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.hasPrefix("libpng:"), message)
        }
    }

    func testHugeDeclaredSizeRejectedBeforeAllocation() throws {
        var bytes = try Fixtures.bytes("rgb8.png")
        // IHDR width = height = 60000 (3.6 gigapixels), with a valid CRC.
        for i in 0..<2 { bytes[16 + 4 * i ..< 20 + 4 * i] = [0, 0, 0xEA, 0x60] }
        let crc = crc32(bytes[12..<29])
        bytes[29..<33] = [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        XCTAssertThrowsError(try Image(decoding: bytes, name: "huge.png")) { error in
            XCTAssertEqual(error as? ImageError, .tooLarge(name: "huge.png", width: 60000, height: 60000, limit: Image.defaultMaxPixels))
        }
    }

    func testZeroWidthRejected() throws {
        var bytes = try Fixtures.bytes("rgb8.png")
        bytes[16..<20] = [0, 0, 0, 0]
        XCTAssertThrowsError(try Image(decoding: bytes, name: "zero.png")) { error in
            XCTAssertEqual(error as? ImageError, .invalidDimensions(name: "zero.png", width: 0, height: 23))
        }
    }

    func testWritesAndReadsBackPNG() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("imaging-png-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = try Image(contentsOf: Fixtures.path("rgb8.png"))
        let path = dir.appendingPathComponent("out.PNG").path
        try original.write(to: path)
        XCTAssertEqual(try Image(contentsOf: path), original)
    }

    private func findChunk(_ type: String, in bytes: [UInt8]) -> Int? {
        var o = 8
        while o + 8 <= bytes.count {
            let length = Int(bytes[o]) << 24 | Int(bytes[o + 1]) << 16 | Int(bytes[o + 2]) << 8 | Int(bytes[o + 3])
            if String(decoding: bytes[(o + 4)..<(o + 8)], as: UTF8.self) == type { return o }
            o += 12 + length
        }
        return nil
    }
}
