import TestSupport
import XCTest
@testable import Imaging

/// Format detection, byte → float conversion and the error cases of `Image(contentsOf:)`.
final class ImageDecodingTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("imaging-dec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    private func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let url = dir.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    /// darknet's ipl_to_image divides in double (`data[i]/255.`) then stores a float.
    func testByteConversionEqualsDarknetDoubleDivision() {
        for byte in 0...255 {
            XCTAssertEqual(byteToUnit[byte], Float(Double(byte) / 255.0))
            XCTAssertEqual(byteToUnit[byte], Float(byte) / 255)
        }
    }

    func testMissingFile() {
        let path = dir.appendingPathComponent("nope.jpg").path
        XCTAssertThrowsError(try Image(contentsOf: path)) { error in
            XCTAssertEqual(error as? ImageError, .unreadable(path: path, reason: "no such file"))
            XCTAssertTrue("\(error)".contains(path))
        }
    }

    /// A FIFO (`<(cat photo.jpg)`, `/dev/stdin` from a pipe) is read to its end (issue #31);
    /// an endless device that is not an image is refused after its first bytes.
    func testFIFOAndEndlessDevice() throws {
        let image = Image(width: 3, height: 2, channels: 3, fill: 0.4)
        let png = try image.pngData()
        let fifo = dir.appendingPathComponent("pipe").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let writer = Thread {
            let fd = open(fifo, O_WRONLY)
            _ = png.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        writer.start()
        XCTAssertEqual(try Image(contentsOf: fifo), image)
        XCTAssertThrowsError(try Image(contentsOf: "/dev/zero")) { error in
            guard case .unsupportedFormat(let name, _) = error as? ImageError else { return XCTFail("\(error)") }
            XCTAssertEqual(name, "/dev/zero")
        }
    }

    func testDirectory() {
        XCTAssertThrowsError(try Image(contentsOf: dir.path)) { error in
            XCTAssertEqual(error as? ImageError, .unreadable(path: dir.path, reason: "is a directory"))
        }
    }

    func testEmptyFile() throws {
        let path = try file("empty.png", [])
        XCTAssertThrowsError(try Image(contentsOf: path)) { error in
            XCTAssertEqual(error as? ImageError, .empty(name: path))
            XCTAssertTrue("\(error)".contains("empty.png"))
        }
    }

    func testUnsupportedFormatsShowMagicBytes() throws {
        let cases: [(String, [UInt8], String)] = [
            ("a.gif", Array("GIF89a".utf8) + [1, 0, 1, 0], "47 49 46 38 39 61 01 00 (\"GIF89a..\")"),
            ("a.bmp", Array("BM".utf8) + [0x36, 0, 0, 0], "42 4D 36 00 00 00 (\"BM6...\")"),
            ("a.txt", Array("hello world\n".utf8), "68 65 6C 6C 6F 20 77 6F (\"hello wo\")"),
            ("one.jpg", [0xFF], "FF (\".\")"),
            ("half.png", [0x89, 0x50, 0x4E], "89 50 4E (\".PN\")"),
        ]
        for (name, bytes, magic) in cases {
            let path = try file(name, bytes)
            XCTAssertThrowsError(try Image(contentsOf: path), name) { error in
                XCTAssertEqual(error as? ImageError, .unsupportedFormat(name: path, magic: magic))
                XCTAssertTrue("\(error)".contains(name))
            }
        }
    }

    /// The format comes from the bytes, not the extension.
    func testPNGNamedJPG() throws {
        let path = try file("really-a-png.jpg", try Fixtures.bytes("rgb8.png"))
        XCTAssertEqual(try Image(contentsOf: path), try Image(contentsOf: Fixtures.path("rgb8.png")))
    }

    /// The pixel limit is a value each call takes: below an image's size it is refused
    /// before decoding (JPEG, PNG, pixel buffers), at it the image loads.
    func testPixelLimitIsAValuePerCall() throws {
        XCTAssertThrowsError(try Image(contentsOf: Fixtures.path("rgb8.png"), maxPixels: 37 * 23 - 1)) { error in
            guard case ImageError.tooLarge(_, 37, 23, 37 * 23 - 1) = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try Image(contentsOf: Fixtures.path("pattern_q80.jpg"), maxPixels: 100))
        XCTAssertThrowsError(try Image(pixels: [UInt8](repeating: 0, count: 300), width: 10, height: 10, bytesPerRow: 30,
                                       layout: .rgb, maxPixels: 99))
        XCTAssertNoThrow(try Image(contentsOf: Fixtures.path("rgb8.png"), maxPixels: 37 * 23))
        XCTAssertNoThrow(try Image(contentsOf: Fixtures.path("rgb8.png")))
    }

    /// Random corruption of valid files must only ever produce errors or images, never crash.
    func testCorruptedBytesNeverCrash() throws {
        var generator = SplitMix64(seed: 12345)
        for name in ["rgb8.png", "rgba16.png", "gray_alpha16.png", "palette8.png", "pattern_q80.jpg", "cmyk_q90.jpg"] {
            let original = try Fixtures.bytes(name)
            for _ in 0..<60 {
                var bytes = original
                for _ in 0..<3 {
                    let i = Int(generator.next() % UInt64(bytes.count))
                    bytes[i] = UInt8(truncatingIfNeeded: generator.next())
                }
                if generator.next() % 3 == 0 { bytes = Array(bytes.prefix(Int(generator.next() % UInt64(bytes.count)))) }
                do {
                    let image = try Image(decoding: bytes, name: name)
                    XCTAssertEqual(image.data.count, image.width * image.height * 3)
                } catch let error as ImageError {
                    XCTAssertTrue(error.description.contains(name))
                }
            }
        }
    }
}
