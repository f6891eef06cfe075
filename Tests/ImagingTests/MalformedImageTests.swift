import XCTest
@testable import Imaging

/// The image part of issue #8's malformed corpus: committed fixtures cut at every PNG chunk
/// boundary and inside each chunk, JPEGs cut at every marker, headers declaring huge or zero
/// sizes, and files that are not images. Each must give its `ImageError` case and a message
/// naming the file.
final class MalformedImageTests: XCTestCase {
    static func kind(_ error: Error) -> String {
        Mirror(reflecting: error).children.first?.label ?? String(describing: error)
    }

    func expect(_ bytes: [UInt8], _ kind: String, _ name: String, file: StaticString = #filePath, line: UInt = #line) {
        do {
            let image = try Image(decoding: bytes, name: name)
            XCTFail("\(name): decoded \(image.width)x\(image.height), expected \(kind)", file: file, line: line)
        } catch {
            XCTAssertEqual(Self.kind(error), kind, "\(name): \(error)", file: file, line: line)
            XCTAssertTrue("\(error)".contains(name), "\(name): \(error)", file: file, line: line)
        }
    }

    /// Offsets where each PNG chunk starts (after the 8-byte signature).
    static func chunkStarts(_ bytes: [UInt8]) -> [(offset: Int, type: String)] {
        var result: [(Int, String)] = []
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            result.append((offset, String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)))
            offset += 12 + length
        }
        return result
    }

    func testPNGsCutAtEveryChunkBoundaryAndInsideEachChunk() throws {
        var count = 0
        for fixture in ["rgb8.png", "palette8.png", "gray16.png", "rgb8_interlaced.png", "rgba16.png"] {
            let bytes = try Fixtures.bytes(fixture)
            for (offset, type) in Self.chunkStarts(bytes) where type != "IEND" {
                for cut in [offset, offset + 6, offset + 10] where cut < bytes.count {
                    expect(Array(bytes.prefix(cut)), "corruptPNG", "\(fixture) cut at \(cut) (\(type))")
                    count += 1
                }
            }
            expect(Array(bytes.prefix(5)), "unsupportedFormat", "\(fixture) cut inside the signature")
            count += 1
        }
        XCTAssertGreaterThan(count, 30)
    }

    func testJPEGsCutAtEveryMarker() throws {
        var count = 0
        for fixture in ["pattern_q80.jpg", "pattern_q95.jpg", "gray_q90.jpg", "cmyk_q90.jpg", "pattern_q80_exif2.jpg"] {
            let bytes = try Fixtures.bytes(fixture)
            // Markers FF xx after SOI (a cut at 2 leaves FF D8, not a JPEG signature), (xx not 00, not FF, not a restart marker) before the image data ends.
            let markers = (3..<(bytes.count - 2)).filter { bytes[$0] == 0xFF && bytes[$0 + 1] != 0 && bytes[$0 + 1] != 0xFF
                && !(0xD0...0xD7).contains(bytes[$0 + 1]) && bytes[$0 + 1] != 0xD9 }
            for offset in markers {
                expect(Array(bytes.prefix(offset)), "corruptJPEG", "\(fixture) cut at \(offset)")
                count += 1
            }
        }
        XCTAssertGreaterThan(count, 20)
    }

    /// IHDR declaring huge or zero sizes (CRC fixed so the size check is what refuses it).
    func testPNGHeadersWithHugeOrZeroSizes() throws {
        let bytes = try Fixtures.bytes("rgb8.png")
        for (width, height, kind) in [(0x7FFF_FFFF, 0x7FFF_FFFF, "tooLarge"), (100_000, 100_000, "tooLarge"),
                                      (0, 5, "invalidDimensions"), (5, 0, "invalidDimensions")] as [(UInt32, UInt32, String)] {
            var patched = bytes
            for (i, v) in [width, height].enumerated() {
                withUnsafeBytes(of: v.bigEndian) { patched.replaceSubrange((16 + 4 * i)..<(20 + 4 * i), with: $0) }
            }
            let crc = crc32(Array(patched[12..<29]))
            withUnsafeBytes(of: crc.bigEndian) { patched.replaceSubrange(29..<33, with: $0) }
            expect(patched, kind, "ihdr \(width)x\(height)")
        }
    }

    func testNotImages() {
        expect([], "empty", "empty.jpg")
        expect(Array("<!DOCTYPE html><html>404</html>".utf8), "unsupportedFormat", "page.jpg")
        expect(Array("version https://git-lfs.github.com/spec/v1\n".utf8), "unsupportedFormat", "lfs.png")
        expect([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0], "unsupportedFormat", "anim.gif")
        expect([0x42, 0x4D, 0, 0, 0, 0], "unsupportedFormat", "photo.bmp")
        expect([0xFF, 0xD8, 0xFF], "corruptJPEG", "three.jpg")
        expect([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "corruptPNG", "signature.png")
    }

    func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
