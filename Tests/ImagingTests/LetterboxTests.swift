import XCTest
@testable import Imaging

/// `letterboxed` against darknet's `letterbox_image`.
final class LetterboxTests: XCTestCase {
    func testMatchesDarknetLetterboxImage() throws {
        let manifest = try Fixtures.manifest()
        let jobs = try XCTUnwrap(manifest["letterbox"] as? [[String: Any]])
        let decode = try XCTUnwrap(manifest["decode"] as? [String: Any])
        XCTAssertGreaterThanOrEqual(jobs.count, 6)
        for job in jobs {
            let input = try XCTUnwrap(job["input"] as? String)
            let source = try Fixtures.image(entry: try XCTUnwrap(decode[input] as? [String: Any]))
            let expected = try Fixtures.image(entry: job)
            let ours = source.letterboxed(width: expected.width, height: expected.height)
            assertImagesEqual(ours, expected, "\(input) → letterbox \(expected.width)x\(expected.height)")
        }
    }

    /// The full pipeline on the sample photos: decode + 416x416 letterbox equals darknet bit for bit.
    func testSamplePhotosLetterbox416EqualDarknet() throws {
        let data = try Data(contentsOf: Fixtures.directory.appendingPathComponent("photos.json"))
        let stats = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: [String: Any]])
        for (name, entry) in stats.sorted(by: { $0.key < $1.key }) {
            let boxed = try Image(contentsOf: try Fixtures.photo(name)).letterboxed(width: 416, height: 416)
            let expected = try XCTUnwrap(entry["letterbox416"] as? [String: Any])
            let samples = try XCTUnwrap(expected["sample"] as? [String: Double])
            for (index, value) in samples {
                XCTAssertEqual(boxed.data[try XCTUnwrap(Int(index))], Float(value), "\(name) sample \(index)")
            }
            XCTAssertEqual(UInt(float32CRC(boxed)), expected["crc32_f32"] as? UInt, "\(name): letterbox differs from darknet's")
        }
    }

    /// 768x576 → 416x416: (float)416/768 < (float)416/576, so new_w = 416,
    /// new_h = 576*416/768 = 312, embedded at y = (416-312)/2 = 52; rows above are 0.5.
    func testGeometryByDarknetArithmetic() {
        var source = Image(width: 768, height: 576, channels: 3, fill: 0.25)
        source[0, 0, 0] = 0.25
        let boxed = source.letterboxed(width: 416, height: 416)
        XCTAssertEqual(boxed[200, 51, 1], 0.5)
        XCTAssertEqual(boxed[200, 52, 1], 0.25)
        XCTAssertEqual(boxed[200, 52 + 311, 1], 0.25)
        XCTAssertEqual(boxed[200, 52 + 312, 1], 0.5)
    }

    func testEmbedClipsAtEdges() {
        var canvas = Image(width: 4, height: 3, channels: 1, fill: 0)
        canvas.embed(Image(width: 3, height: 3, channels: 1, fill: 1), x: -1, y: 2)
        XCTAssertEqual(canvas.data, [0, 0, 0, 0,
                                     0, 0, 0, 0,
                                     1, 1, 0, 0])
    }
}
