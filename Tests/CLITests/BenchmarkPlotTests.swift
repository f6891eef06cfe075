@testable import darknet_swift
import XCTest

final class BenchmarkPlotTests: XCTestCase {
    func testTickStepsAreOneTwoOrFiveTimesAPowerOfTen() {
        // maximum / 6 rounded up to the next 1, 2 or 5 × 10^k.
        XCTAssertEqual(BenchmarkPlot.tickStep(44.3), 10)   // 7.4 → 10
        XCTAssertEqual(BenchmarkPlot.tickStep(27.3), 5)    // 4.55 → 5
        XCTAssertEqual(BenchmarkPlot.tickStep(9), 2)       // 1.5 → 2
        XCTAssertEqual(BenchmarkPlot.tickStep(0.6), 0.1, accuracy: 1e-12)
        XCTAssertEqual(BenchmarkPlot.tickStep(0), 1)
    }

    func testXMLEscaping() {
        XCTAssertEqual(BenchmarkPlot.x("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;")
        XCTAssertEqual(BenchmarkPlot.x("bell\u{7}"), "bell?", "control characters are not allowed in XML 1.0")
    }

    func testSVGOnlyAndNoOverwrite() throws {
        XCTAssertThrowsError(try BenchmarkPlot.check("chart.png", force: false))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plot-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("a.svg").path
        try BenchmarkPlot.write("<svg/>", to: path, force: false)
        XCTAssertThrowsError(try BenchmarkPlot.write("<svg>2</svg>", to: path, force: false)) { error in
            XCTAssertEqual(String(describing: error), "\(path) already exists (use --force to overwrite it)")
        }
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "<svg/>")
        try BenchmarkPlot.write("<svg>2</svg>", to: path, force: true)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "<svg>2</svg>")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["a.svg"])
    }
}
