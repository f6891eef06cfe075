import Foundation
import XCTest
@testable import Imaging

/// Decoding to 1, 2 and 4 channels as AlexeyAB's darknet loads images for `[net] channels`
/// (stb_image's `stbi_load(path, …, req_comp)`), and the same conversion of images in memory.
final class ChannelsTests: XCTestCase {
    /// A 9×7 RGB image of varied bytes (every sample a `byte / 255`).
    func colourImage() -> (image: Image, bytes: [UInt8]) {
        let w = 9, h = 7
        var bytes = [UInt8](repeating: 0, count: w * h * 3)
        for i in 0..<bytes.count { bytes[i] = UInt8((i * 97 + 13) % 256) }
        return (try! Image(pixels: bytes, width: w, height: h, bytesPerRow: w * 3, layout: .rgb), bytes)
    }

    /// stb_image's `stbi__compute_y`, written out independently of the code under test.
    func stbGrey(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Float {
        Float(Double((Int(r) * 77 + Int(g) * 150 + Int(b) * 29) >> 8) / 255.0)
    }

    func testPNGToOneChannelIsStbFormulaOnTheBytes() throws {
        let (image, bytes) = colourImage()
        let png = try image.pngData()
        let grey = try Image(decoding: png, name: "g.png", channels: 1)
        XCTAssertEqual(grey.channels, 1)
        XCTAssertEqual(grey.width, 9)
        for i in 0..<(9 * 7) {
            XCTAssertEqual(grey.data[i], stbGrey(bytes[3 * i], bytes[3 * i + 1], bytes[3 * i + 2]), "pixel \(i)")
        }
        // The old behaviour (the red channel) differs: the test can tell them apart.
        XCTAssertNotEqual(Array(grey.data), Array(image.data.prefix(9 * 7)))
        // The same conversion in memory.
        XCTAssertEqual(image.converted(toChannels: 1), grey)
    }

    func testTwoAndFourChannelsAddOpaqueAlphaWhenTheFileHasNone() throws {
        let (image, bytes) = colourImage()
        let png = try image.pngData()
        let plane = 9 * 7
        let two = try Image(decoding: png, name: "g.png", channels: 2)
        XCTAssertEqual(two.channels, 2)
        XCTAssertEqual(Array(two.data[plane...]), [Float](repeating: 1, count: plane))
        XCTAssertEqual(Array(two.data[..<plane]), (0..<plane).map { stbGrey(bytes[3 * $0], bytes[3 * $0 + 1], bytes[3 * $0 + 2]) })
        let four = try Image(decoding: png, name: "g.png", channels: 4)
        XCTAssertEqual(Array(four.data[..<(3 * plane)]), image.data)
        XCTAssertEqual(Array(four.data[(3 * plane)...]), [Float](repeating: 1, count: plane))
        XCTAssertEqual(image.converted(toChannels: 2), two)
        XCTAssertEqual(image.converted(toChannels: 4), four)
        XCTAssertEqual(four.converted(toChannels: 3), image)
        XCTAssertEqual(try Image(decoding: png, name: "g.png", channels: 3), try Image(decoding: png, name: "g.png"))
    }

    func testAlphaOfRGBAAndGreyAlphaPNGsAt8And16Bits() throws {
        let w = 5, h = 3, n = w * h
        let rgba: [UInt8] = (0..<(4 * n)).map { UInt8(($0 * 53 + 7) % 256) }
        for depth in [8, 16] {
            let png = TinyPNG.encode(rgba, width: w, height: h, colorType: 6, depth: depth)
            let four = try Image(decoding: png, name: "a.png", channels: 4)
            for i in 0..<n {
                for k in 0..<4 { XCTAssertEqual(four[i % w, i / w, k], Float(Double(rgba[4 * i + k]) / 255), "depth \(depth)") }
            }
            let one = try Image(decoding: png, name: "a.png", channels: 1)
            XCTAssertEqual(one.data, (0..<n).map { stbGrey(rgba[4 * $0], rgba[4 * $0 + 1], rgba[4 * $0 + 2]) }, "depth \(depth)")
            let two = try Image(decoding: png, name: "a.png", channels: 2)
            XCTAssertEqual(Array(two.data[n...]), (0..<n).map { Float(Double(rgba[4 * $0 + 3]) / 255) }, "depth \(depth)")
            // Grey + alpha: the grey is itself, the alpha kept; RGB replicates the grey.
            let ga: [UInt8] = (0..<(2 * n)).map { UInt8(($0 * 31 + 3) % 256) }
            let greyAlpha = TinyPNG.encode(ga, width: w, height: h, colorType: 4, depth: depth)
            let g2 = try Image(decoding: greyAlpha, name: "ga.png", channels: 2)
            XCTAssertEqual(g2.data, (0..<n).map { Float(Double(ga[2 * $0]) / 255) } + (0..<n).map { Float(Double(ga[2 * $0 + 1]) / 255) },
                           "depth \(depth)")
            let g4 = try Image(decoding: greyAlpha, name: "ga.png", channels: 4)
            XCTAssertEqual(Array(g4.data[(3 * n)...]), Array(g2.data[n...]))
            XCTAssertEqual(Array(g4.data[n..<(2 * n)]), Array(g2.data[..<n]))
            XCTAssertEqual(g4.converted(toChannels: 2), g2)
        }
    }

    /// A YCbCr JPEG asked for one channel gives its Y plane: blocks of one colour at quality 100
    /// decode to exactly libjpeg's `Y = (19595 R + 38470 G + 7471 B + 32768) >> 16` (jccolor.c),
    /// which for blue and green is not stb's formula on RGB.
    func testJPEGToOneChannelIsItsYPlane() throws {
        let colours: [(UInt8, UInt8, UInt8)] = [(0, 0, 255), (0, 255, 0), (255, 0, 0), (200, 100, 50), (13, 250, 77), (90, 90, 90)]
        let w = 8 * colours.count, h = 16
        var bytes = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            for x in 0..<w {
                let (r, g, b) = colours[x / 8]
                bytes[3 * (y * w + x)] = r; bytes[3 * (y * w + x) + 1] = g; bytes[3 * (y * w + x) + 2] = b
            }
        }
        let image = try Image(pixels: bytes, width: w, height: h, bytesPerRow: w * 3, layout: .rgb)
        let jpeg = try image.jpegData(quality: 100)
        let grey = try Image(decoding: jpeg, name: "y.jpg", channels: 1)
        for (index, (r, g, b)) in colours.enumerated() {
            let y = (19595 * Int(r) + 38470 * Int(g) + 7471 * Int(b) + 32768) >> 16
            for row in 0..<h {
                for x in (8 * index)..<(8 * index + 8) {
                    XCTAssertEqual(grey[x, row, 0], Float(Double(y) / 255), "colour \(index) at \(x),\(row)")
                }
            }
        }
        XCTAssertNotEqual(grey[0, 0, 0], stbGrey(0, 0, 255))   // 29 vs 28: the Y plane, not the formula
        XCTAssertNotEqual(grey[8, 0, 0], stbGrey(0, 255, 0))   // 150 vs 149
        let two = try Image(decoding: jpeg, name: "y.jpg", channels: 2)
        XCTAssertEqual(Array(two.data[..<(w * h)]), grey.data)
        XCTAssertEqual(Array(two.data[(w * h)...]), [Float](repeating: 1, count: w * h))
        // Four channels are the RGB decode and opaque alpha.
        let four = try Image(decoding: jpeg, name: "y.jpg", channels: 4)
        XCTAssertEqual(Array(four.data[..<(3 * w * h)]), try Image(decoding: jpeg, name: "y.jpg").data)
    }

    /// A grey JPEG (one component) gives its samples, whatever is asked.
    func testGreyJPEG() throws {
        let grey = Image(width: 16, height: 8, channels: 1, data: (0..<128).map { Float(Double(($0 * 2) % 256) / 255) })
        let jpeg = try grey.jpegData(quality: 100)
        let one = try Image(decoding: jpeg, name: "g.jpg", channels: 1)
        let rgb = try Image(decoding: jpeg, name: "g.jpg")
        XCTAssertEqual(one.data, Array(rgb.data[..<128]))
        XCTAssertEqual(rgb.converted(toChannels: 1), one)
    }

    /// The EXIF orientation turns 1-channel images as it turns RGB ones.
    func testOrientationAppliesToGrey() throws {
        let path = Fixtures.path("pattern_q80_exif6.jpg")
        let rgb = try Image(contentsOf: path)
        let grey = try Image(contentsOf: path, channels: 1)
        XCTAssertEqual(grey.width, rgb.width)
        XCTAssertEqual(grey.height, rgb.height)
        let upright = try Image(contentsOf: Fixtures.path("pattern_q80.jpg"), channels: 1)
        XCTAssertEqual(grey.width, upright.height)
        // Orientation 6 turns 90° clockwise: output (x, y) is source (y, h - 1 - x).
        XCTAssertEqual(grey[0, 0, 0], upright[0, upright.height - 1, 0])
    }

    func testOtherChannelCountsAreRefused() throws {
        let png = try colourImage().image.pngData()
        for channels in [0, 5, -1] {
            XCTAssertThrowsError(try Image(decoding: png, name: "x.png", channels: channels)) { error in
                XCTAssertEqual(error as? ImageError, .unsupportedChannels(name: "x.png", channels: channels))
            }
        }
        // In memory, beyond 4 the last channel is replicated.
        let five = colourImage().image.converted(toChannels: 5)
        XCTAssertEqual(five.channels, 5)
        XCTAssertEqual(Array(five.data[(4 * 63)...]), Array(colourImage().image.data[(2 * 63)...]))
    }

    func testCropped() {
        let (image, _) = colourImage()
        let crop = image.cropped(x: 2, y: 1, width: 4, height: 3)
        XCTAssertEqual(crop.width, 4)
        XCTAssertEqual(crop.height, 3)
        for k in 0..<3 { for y in 0..<3 { for x in 0..<4 { XCTAssertEqual(crop[x, y, k], image[x + 2, y + 1, k]) } } }
        // Clipped to the image; wholly outside is empty.
        let edge = image.cropped(x: 7, y: -2, width: 10, height: 4)
        XCTAssertEqual([edge.width, edge.height], [2, 2])
        XCTAssertEqual(edge[0, 0, 1], image[7, 0, 1])
        XCTAssertEqual(image.cropped(x: 9, y: 0, width: 3, height: 3).data.count, 0)
        XCTAssertEqual(image.cropped(x: 0, y: 0, width: 9, height: 7), image)
    }
}

/// Writes small PNGs of colour types the project's encoder does not write (grey+alpha, RGBA;
/// 8 or 16 bits, samples given as bytes and repeated as both bytes of a 16-bit sample),
/// with zlib "stored" blocks: no compression library involved.
enum TinyPNG {
    static func encode(_ samples: [UInt8], width: Int, height: Int, colorType: UInt8, depth: Int) -> [UInt8] {
        let perPixel = colorType == 6 ? 4 : 2
        var raw: [UInt8] = []
        for y in 0..<height {
            raw.append(0)  // filter: none
            for i in 0..<(width * perPixel) {
                let sample = samples[y * width * perPixel + i]
                raw += depth == 16 ? [sample, sample] : [sample]
            }
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65535, raw.count - offset)
            let last: UInt8 = offset + count == raw.count ? 1 : 0
            zlib += [last, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            zlib += raw[offset..<(offset + count)]
            offset += count
        } while offset < raw.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        zlib += be32(b << 16 | a)
        let header = be32(UInt32(width)) + be32(UInt32(height)) + [UInt8(depth), colorType, 0, 0, 0]
        return pngSignature + chunk("IHDR", header) + chunk("IDAT", zlib) + chunk("IEND", [])
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(crc32(body))
    }
}
