import Foundation
import TestSupport
import XCTest
@testable import Imaging

/// Access to the oracle fixtures (see Fixtures/README.md).
enum Fixtures {
    static var directory: URL {
        Bundle.module.resourceURL!.appendingPathComponent("Fixtures")
    }

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static func manifest() throws -> [String: Any] {
        let data = try Data(contentsOf: directory.appendingPathComponent("manifest.json"))
        return try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// A darknet image dumped by the oracle: raw little-endian float32 CHW.
    static func image(_ file: String, width: Int, height: Int, channels: Int) throws -> Image {
        let raw = try bytes(file)
        XCTAssertEqual(raw.count, width * height * channels * 4, file)
        var data = [Float](repeating: 0, count: raw.count / 4)
        for i in 0..<data.count {
            let bits = UInt32(raw[4 * i]) | UInt32(raw[4 * i + 1]) << 8 | UInt32(raw[4 * i + 2]) << 16 | UInt32(raw[4 * i + 3]) << 24
            data[i] = Float(bitPattern: bits)
        }
        return Image(width: width, height: height, channels: channels, data: data)
    }

    /// Reads a manifest entry {"w","h","c","file"} as an image.
    static func image(entry: [String: Any]) throws -> Image {
        try image(try XCTUnwrap(entry["file"] as? String),
                  width: try XCTUnwrap(entry["w"] as? Int),
                  height: try XCTUnwrap(entry["h"] as? Int),
                  channels: try XCTUnwrap(entry["c"] as? Int))
    }

    /// Path of a fetched sample photo (skips, or fails under DARKNET_SWIFT_REQUIRE_DATA, when missing).
    static func photo(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        try TestData.path("data/\(name)", file: file, line: line)
    }
}

/// Asserts two images have the same size and every sample within `tolerance` (0 = bit-identical
/// values), reporting the first differing sample and how many differ.
func assertImagesEqual(_ a: Image, _ b: Image, tolerance: Float = 0, _ message: String = "",
                       file: StaticString = #filePath, line: UInt = #line) {
    guard a.width == b.width, a.height == b.height, a.channels == b.channels else {
        XCTFail("\(message): size \(a.channels)x\(a.height)x\(a.width) != \(b.channels)x\(b.height)x\(b.width)", file: file, line: line)
        return
    }
    var mismatches = 0
    var first: String? = nil
    for i in 0..<a.data.count where !(abs(a.data[i] - b.data[i]) <= tolerance) {
        mismatches += 1
        if first == nil {
            let plane = a.width * a.height
            first = "c=\(i / plane) y=\(i % plane / a.width) x=\(i % a.width): \(a.data[i]) vs \(b.data[i])"
        }
    }
    if let first {
        XCTFail("\(message): \(mismatches) of \(a.data.count) samples differ; first at \(first)", file: file, line: line)
    }
}
