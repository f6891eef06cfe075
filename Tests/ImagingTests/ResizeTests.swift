import XCTest
@testable import Imaging

/// `resized` against darknet's `resize_image` outputs dumped by the oracle.
final class ResizeTests: XCTestCase {
    func testMatchesDarknetResizeImage() throws {
        let jobs = try XCTUnwrap(try Fixtures.manifest()["resize"] as? [[String: Any]])
        let decode = try XCTUnwrap(try Fixtures.manifest()["decode"] as? [String: Any])
        XCTAssertGreaterThanOrEqual(jobs.count, 8)
        for job in jobs {
            let input = try XCTUnwrap(job["input"] as? String)
            // Start from darknet's own decode so this test only exercises the resampling.
            let source = try Fixtures.image(entry: try XCTUnwrap(decode[input] as? [String: Any]))
            let expected = try Fixtures.image(entry: job)
            let ours = source.resized(width: expected.width, height: expected.height)
            assertImagesEqual(ours, expected, "\(input) → \(expected.width)x\(expected.height)")
        }
    }

    /// Same-size resize: w_scale = h_scale = 1, so every sample is (1-0)*p + 0*q = p.
    func testIdentitySize() throws {
        let image = try Image(contentsOf: Fixtures.path("rgb8.png"))
        XCTAssertEqual(image.resized(width: image.width, height: image.height), image)
    }

    /// Height 1 output: darknet computes 0 * inf (undefined); we take source row 0 resampled.
    func testOneRowOutputUsesFirstRow() throws {
        let image = try Image(contentsOf: Fixtures.path("rgb8.png"))
        let row = image.resized(width: 10, height: 1)
        let reference = image.resized(width: 10, height: image.height)
        for c in 0..<3 { for x in 0..<10 { XCTAssertEqual(row[x, 0, c], reference[x, 0, c]) } }
    }

    func testNonPositiveSizesGiveEmptyImage() {
        let image = Image(width: 4, height: 3, channels: 3, fill: 0.25)
        XCTAssertEqual(image.resized(width: 0, height: 5).data.count, 0)
        XCTAssertEqual(image.resized(width: -3, height: 5).width, 0)
    }
}
