import Foundation
import XCTest

/// `--help` of every command is compared with a snapshot in Fixtures/ (regenerate with
/// `UPDATE_SNAPSHOTS=1 swift test --filter HelpTests`, then review the diff).
final class HelpTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    func check(_ arguments: [String], snapshot: String) throws {
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, 0, result.stderr)
        let url = Self.fixtures.appendingPathComponent(snapshot)
        if ProcessInfo.processInfo.environment["UPDATE_SNAPSHOTS"] == "1" {
            try FileManager.default.createDirectory(at: Self.fixtures, withIntermediateDirectories: true)
            try result.stdout.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        XCTAssertEqual(result.stdout, expected, "--help changed: review and run with UPDATE_SNAPSHOTS=1")
    }

    func testRootHelp() throws { try check(["--help"], snapshot: "help.txt") }
    func testDetectHelp() throws { try check(["detect", "--help"], snapshot: "help-detect.txt") }
    func testStreamHelp() throws { try check(["stream", "--help"], snapshot: "help-stream.txt") }
    func testClassifyHelp() throws { try check(["classify", "--help"], snapshot: "help-classify.txt") }
    func testMapHelp() throws { try check(["map", "--help"], snapshot: "help-map.txt") }
    func testValidHelp() throws { try check(["valid", "--help"], snapshot: "help-valid.txt") }
    func testDetectorHelp() throws { try check(["detector", "--help"], snapshot: "help-detector.txt") }
    func testSummaryHelp() throws { try check(["summary", "--help"], snapshot: "help-summary.txt") }
    func testBenchmarkHelp() throws { try check(["benchmark", "--help"], snapshot: "help-benchmark.txt") }
    func testSynthWeightsHelp() throws { try check(["synth-weights", "--help"], snapshot: "help-synth-weights.txt") }
    func testCalibrateHelp() throws { try check(["calibrate", "--help"], snapshot: "help-calibrate.txt") }

    /// `--version`: the version, the commit it was built from, the Swift compiler that built it
    /// (the one that built this test, in the same build), the BLAS library and core, why the core
    /// is not OpenBLAS's own pick when it is not (`BLASCore`), the packed kernel the engine drives,
    /// and what `--precision int8` runs on or why it cannot.
    func testVersion() throws {
        let result = try CLI.run(["--version"], environment: ["DARKNET_SWIFT_COMMIT": "abc1234"])
        XCTAssertEqual(result.status, 0)
        var lines = result.stdout.split(separator: "\n").map(String.init)
        if lines.count == 7 {
            XCTAssertTrue(lines[3].hasPrefix("BLAS core: OpenBLAS picked "), result.stdout)
            lines.remove(at: 3)
        }
        XCTAssertEqual(lines.count, 6, result.stdout)
        guard lines.count == 6 else { return }
        XCTAssertTrue(lines[4].hasPrefix("int8: oneDNN ") || lines[4].hasPrefix("int8: unavailable: "), result.stdout)
        XCTAssertTrue(lines[5].hasPrefix("gemm onednn: dnnl_sgemm of oneDNN ") || lines[5].hasPrefix("gemm onednn: unavailable: "),
                      result.stdout)
        XCTAssertEqual(lines[0], "darknet-swift 0.1.0 (commit abc1234)")
        #if compiler(>=6.3) && !compiler(>=6.4)
        XCTAssertEqual(lines[1], "Swift: 6.3")
        #else
        XCTAssertNotNil(lines[1].range(of: #"^Swift: [6-9]\.[0-9]( or later)?$"#, options: .regularExpression), result.stdout)
        #endif
        XCTAssertTrue(lines[2].hasPrefix("BLAS: OpenBLAS ") && lines[2].contains(", core "), result.stdout)
        XCTAssertTrue(lines[3].hasPrefix("packed weights: "), result.stdout)
    }

    /// A core the user names with `OPENBLAS_CORETYPE` stands, even one below what the CPU runs:
    /// no note, and the version names that core.
    func testVersionKeepsTheCoreTheUserNamed() throws {
        #if arch(x86_64)
        let result = try CLI.run(["--version"], environment: ["OPENBLAS_CORETYPE": "Prescott"])
        XCTAssertEqual(result.status, 0)
        XCTAssertTrue(result.stdout.contains(", core Prescott\n"), result.stdout)
        XCTAssertFalse(result.stdout.contains("BLAS core:"), result.stdout)
        XCTAssertTrue(result.stdout.contains("packed weights: none, cblas_sgemm only"), result.stdout)
        #else
        throw XCTSkip("OpenBLAS's Prescott core is x86-64's")
        #endif
    }

    /// Issue #31: `--nms-mode` lists `none`, `--threads` says what it controls, detect's help
    /// has examples.
    func testDetectHelpSaysWhatTheOptionsDo() throws {
        let help = try CLI.run(["detect", "--help"]).stdout
        XCTAssertTrue(help.contains("per-class (darknet's), agnostic (suppress across classes) or none"), help)
        XCTAssertTrue(help.contains("Threads for convolutions and the engine's parallel loops"), help)
        XCTAssertTrue(help.contains("EXAMPLES:"), help)
        XCTAssertTrue(help.contains("darknet-swift detect yolov3.cfg yolov3.weights photos/ --recursive --format jsonl"), help)
    }
}
