import XCTest
@testable import Imaging

/// JPEG decoding against darknet's `load_image_color` (OpenCV imread, libjpeg-turbo).
final class JPEGTests: XCTestCase {
    private func assertMatchesOracle(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let decode = try XCTUnwrap(try Fixtures.manifest()["decode"] as? [String: Any])
        let expected = try Fixtures.image(entry: try XCTUnwrap(decode[name] as? [String: Any]))
        let ours = try Image(contentsOf: Fixtures.path(name))
        assertImagesEqual(ours, expected, name, file: file, line: line)
    }

    func testSubsampled420() throws { try assertMatchesOracle("pattern_q80.jpg") }
    func testFullResolution444() throws { try assertMatchesOracle("pattern_q95.jpg") }
    func testGrayscaleJPEGReplicated() throws { try assertMatchesOracle("gray_q90.jpg") }
    func testCMYKConvertedAsOpenCV() throws { try assertMatchesOracle("cmyk_q90.jpg") }

    func testEveryExifOrientation() throws {
        for orientation in 2...8 { try assertMatchesOracle("pattern_q80_exif\(orientation).jpg") }
    }

    /// The sample photos (never committed): size and the CRC-32 of darknet's float32 bytes must
    /// match the oracle statistics exactly, plus the sampled values as a readable diagnosis.
    func testSamplePhotosEqualDarknet() throws {
        let data = try Data(contentsOf: Fixtures.directory.appendingPathComponent("photos.json"))
        let stats = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: [String: Any]])
        XCTAssertEqual(stats.count, 7)
        for (name, entry) in stats.sorted(by: { $0.key < $1.key }) {
            let image = try Image(contentsOf: try Fixtures.photo(name))
            XCTAssertEqual(image.width, entry["w"] as? Int, name)
            XCTAssertEqual(image.height, entry["h"] as? Int, name)
            XCTAssertEqual(image.channels, 3, name)
            let samples = try XCTUnwrap(entry["sample"] as? [String: Double])
            for (index, value) in samples {
                XCTAssertEqual(image.data[try XCTUnwrap(Int(index))], Float(value), "\(name) sample \(index)")
            }
            XCTAssertEqual(UInt(float32CRC(image)), entry["crc32_f32"] as? UInt, "\(name): decoded floats differ from darknet's")
        }
    }

    func testTruncatedJPEGIsAnError() throws {
        let bytes = try Fixtures.bytes("pattern_q80.jpg")
        for cut in [3, 40, 300, bytes.count / 2, bytes.count - 2] {
            XCTAssertThrowsError(try Image(decoding: Array(bytes.prefix(cut)), name: "cut.jpg"), "cut at \(cut)") { error in
                guard case ImageError.corruptJPEG(let name, let message) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(name, "cut.jpg")
                XCTAssertFalse(message.isEmpty)
            }
        }
    }

    func testGarbageAfterSOIIsAnError() {
        let bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0x55, count: 200)
        XCTAssertThrowsError(try Image(decoding: bytes, name: "garbage.jpg")) { error in
            guard case ImageError.corruptJPEG(let name, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(name, "garbage.jpg")
        }
    }

    func testHugeDeclaredSizeRejectedBeforeAllocation() throws {
        var bytes = try Fixtures.bytes("pattern_q80.jpg")
        // SOF0 marker: FF C0, length(2), precision(1), height(2), width(2).
        let sof = try XCTUnwrap((0..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        bytes[(sof + 5)..<(sof + 9)] = [0xEA, 0x60, 0xEA, 0x60]   // 60000 x 60000
        XCTAssertThrowsError(try Image(decoding: bytes, name: "huge.jpg")) { error in
            XCTAssertEqual(error as? ImageError, .tooLarge(name: "huge.jpg", width: 60000, height: 60000, limit: Image.defaultMaxPixels))
        }
    }

    /// Writing goes through TurboJPEG (4:2:0); reading back must be close to the original
    /// (JPEG is lossy; the pattern has sharp detail, so only the mean error is tight).
    func testWritesAndReadsBackJPEG() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("imaging-jpg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var smooth = Image(width: 40, height: 30, channels: 3, fill: 0)
        for c in 0..<3 { for y in 0..<30 { for x in 0..<40 { smooth[x, y, c] = Float(x + y + 20 * c) / 150 } } }
        for name in ["out.jpg", "out.jpeg"] {
            let path = dir.appendingPathComponent(name).path
            try smooth.write(to: path, jpegQuality: 95)
            let back = try Image(contentsOf: path)
            XCTAssertEqual(back.width, 40)
            XCTAssertEqual(back.height, 30)
            let meanError = zip(back.data, smooth.data).map { abs($0 - $1) }.reduce(0, +) / Float(smooth.data.count)
            XCTAssertLessThan(meanError, 2.0 / 255, name)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), ["out.jpeg", "out.jpg"],
                       "no temporary files left behind")
    }
}

/// CRC-32 of the little-endian float32 bytes, as the oracle's `zlib.crc32(image_bytes(im))`.
func float32CRC(_ image: Image) -> UInt32 {
    var bytes = [UInt8]()
    bytes.reserveCapacity(image.data.count * 4)
    for v in image.data {
        let bits = v.bitPattern
        bytes += [UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 24)]
    }
    return crc32(bytes)
}
