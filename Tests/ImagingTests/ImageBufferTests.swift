import Foundation
import XCTest
@testable import Imaging

/// Images from memory (issue #31): interleaved 8-bit camera buffers with a row stride,
/// encoded files in `Data`, and encoded bytes for any writer.
final class ImageBufferTests: XCTestCase {
    /// A 3×2 image whose rows are padded to 16 bytes, in each layout: the same planar image.
    func testInterleavedLayoutsWithRowPadding() throws {
        let rgb: [[(UInt8, UInt8, UInt8)]] = [[(255, 0, 0), (0, 255, 0), (0, 0, 255)],
                                              [(10, 20, 30), (40, 50, 60), (70, 80, 90)]]
        var expected = Image(width: 3, height: 2, channels: 3, fill: 0)
        for y in 0..<2 {
            for x in 0..<3 {
                expected[x, y, 0] = Float(rgb[y][x].0) / 255
                expected[x, y, 1] = Float(rgb[y][x].1) / 255
                expected[x, y, 2] = Float(rgb[y][x].2) / 255
            }
        }
        let layouts: [(Image.PixelLayout, ((UInt8, UInt8, UInt8)) -> [UInt8])] = [
            (.rgb, { [$0.0, $0.1, $0.2] }),
            (.rgba, { [$0.0, $0.1, $0.2, 7] }),
            (.bgra, { [$0.2, $0.1, $0.0, 7] }),
        ]
        for (layout, pixel) in layouts {
            var bytes: [UInt8] = []
            for row in rgb {
                let packed = row.flatMap(pixel)
                bytes += packed + [UInt8](repeating: 0xEE, count: 16 - packed.count)  // the stride's padding
            }
            let image = try Image(pixels: bytes, width: 3, height: 2, bytesPerRow: 16, layout: layout)
            XCTAssertEqual(image, expected, "\(layout)")
            let fromPointer = try bytes.withUnsafeBytes { try Image(pixels: $0, width: 3, height: 2, bytesPerRow: 16, layout: layout) }
            XCTAssertEqual(fromPointer, expected, "\(layout)")
        }
        // The last row needs only its pixels, not the full stride (buffers often end there).
        let short = [UInt8](repeating: 9, count: 16 + 9)
        XCTAssertEqual(try Image(pixels: short, width: 3, height: 2, bytesPerRow: 16, layout: .rgb).width, 3)
    }

    func testBuffersThatDoNotFitAreErrors() {
        let cases: [(bytes: Int, width: Int, height: Int, stride: Int, layout: Image.PixelLayout, reason: String)] = [
            (24, 4, 2, 11, .rgb, "bytesPerRow 11 is less than 4 pixels × 3 bytes"),
            (20, 4, 2, 12, .rgb, "20 bytes, but 2 rows 12 bytes apart need 24"),
            (64, 0, 2, 12, .rgba, "invalid size 0x2"),
            (64, 2, -1, 12, .bgra, "invalid size 2x-1"),
        ]
        for c in cases {
            XCTAssertThrowsError(try Image(pixels: [UInt8](repeating: 0, count: c.bytes), width: c.width, height: c.height,
                                           bytesPerRow: c.stride, layout: c.layout, name: "camera")) { error in
                XCTAssertEqual(error as? ImageError, .invalidPixelBuffer(name: "camera", reason: c.reason))
                XCTAssertEqual("\(error)", "pixel buffer 'camera': \(c.reason)")
            }
        }
        XCTAssertThrowsError(try Image(pixels: [UInt8](repeating: 0, count: 64), width: Int.max / 2, height: 4,
                                       bytesPerRow: 12, layout: .rgb)) { error in
            guard case .tooLarge = error as? ImageError else { return XCTFail("\(error)") }
        }
    }

    func testDecodingData() throws {
        var source = Image(width: 4, height: 3, channels: 3, fill: 0.2)
        source[1, 2, 0] = 1
        let png = Data(try source.pngData())
        XCTAssertEqual(try Image(decoding: png), source, "PNG is lossless")
        XCTAssertEqual(try Image(decoding: png), try Image(decoding: [UInt8](png), name: "data"))
        let jpeg = Data(try source.jpegData())
        XCTAssertEqual(try Image(decoding: jpeg).width, 4)
        XCTAssertThrowsError(try Image(decoding: Data(), name: "upload")) { error in
            XCTAssertEqual(error as? ImageError, .empty(name: "upload"))
        }
        // A slice whose indices do not start at 0.
        let padded = Data([1, 2, 3]) + png
        XCTAssertEqual(try Image(decoding: padded.dropFirst(3)), source)
    }

    func testPNGDataIsWhatWriteWrites() throws {
        let image = Image(width: 5, height: 3, channels: 3, fill: 0.5)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("imaging-png-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("same.png").path
        try image.write(to: path)
        XCTAssertEqual(try image.pngData(), Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    }
}
