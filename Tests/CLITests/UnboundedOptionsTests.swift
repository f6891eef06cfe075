import Foundation
import TestSupport
import XCTest

/// Issue #53 item 11: what the CLI reports and accepts is bounded and says what it holds.
final class UnboundedOptionsTests: XCTestCase {
    /// `summary --methods` counts a `[connected]` layer's parameters in its total (it said
    /// 0.0 MB for a model that is all connected layers).
    func testMethodTableCountsConnectedParameters() throws {
        let folder = try CLI.temporaryFolder(self)
        let cfg = folder.appendingPathComponent("dense.cfg").path
        try "[net]\nwidth=64\nheight=64\nchannels=3\n[connected]\noutput=100\nactivation=linear\n"
            .write(toFile: cfg, atomically: true, encoding: .utf8)
        let result = try CLI.run(["summary", cfg, "--methods"])
        XCTAssertEqual(result.status, 0, result.stderr)
        // 64·64·3·100 weights + 100 biases = 1,228,900 floats = 4.9 MB.
        XCTAssertTrue(result.stdout.contains("total 4.9 MB of parameters (4.9 MB as darknet stores them)"), result.stdout)
    }

    /// `stream --max-frame-bytes` has the bound of any image read from a stream (1 GiB).
    func testMaxFrameBytesIsBounded() throws {
        let result = try CLI.run(["stream"] + CLI.tinyDetector() + ["--max-frame-bytes", "2000000000"])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("--max-frame-bytes must be 1024...1073741824, got 2000000000"), result.stderr)
    }
}
