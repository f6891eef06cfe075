import Foundation
import TestSupport
import XCTest

/// `--gemm onednn` through the real binary on yolov3-tiny (real weights): `summary --methods`
/// names the routes that multiply on `dnnl_sgemm`, `detect` finds darknet's five objects, and
/// without oneDNN the commands refuse in one line naming what to install.
final class GEMMOptionTests: XCTestCase {
    func tiny() throws -> [String] {
        [try TestData.path("cfg/yolov3-tiny.cfg"), try TestData.path("yolov3-tiny.weights")]
    }

    func testSummaryNamesTheRoutes() throws {
        let cfg = try TestData.path("cfg/yolov3-tiny.cfg")
        let auto = try CLI.run(["summary", cfg, "--methods", "--gemm", "onednn"])
        XCTAssertEqual(auto.status, 0, auto.stderr)
        let lines = auto.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains("convolutions with --conv-algorithm auto --gemm onednn:"), auto.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("    0  im2col-bands+dnnl_sgemm ") }, auto.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("   13  gemm+dnnl_sgemm ") }, auto.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("    2  winograd ") }, "Winograd layers stay Winograd: \(auto.stdout)")
        let plain = try CLI.run(["summary", cfg, "--methods", "--conv-algorithm", "im2col", "--gemm", "onednn"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertTrue(plain.stdout.split(separator: "\n").contains { $0.hasPrefix("    8  im2col+dnnl_sgemm ") }, plain.stdout)
        let openblas = try CLI.run(["summary", cfg, "--methods", "--conv-algorithm", "im2col"])
        XCTAssertFalse(openblas.stdout.contains("dnnl_sgemm"), openblas.stdout)
        XCTAssertTrue(openblas.stdout.split(separator: "\n").contains { $0.hasPrefix("    8  im2col ") }, openblas.stdout)
    }

    /// Without oneDNN (a library name that does not exist), `detect` and `benchmark` refuse in
    /// one line naming what to install; `--version` says why; OpenBLAS runs as before.
    func testWithoutOneDNNTheRefusalIsOneLine() throws {
        let dog = try TestData.path("data/dog.jpg")
        let absent = ["DARKNET_SWIFT_ONEDNN": "libdnnl-absent.so.9"]
        let expected = "darknet-swift: error: f32 on oneDNN cannot run: oneDNN is not installed (libdnnl-absent.so.9 "
            + "(DARKNET_SWIFT_ONEDNN) not found): run tools/install-deps --int8 (Debian: apt-get install libdnnl2)\n"
        let detect = try CLI.run(["detect"] + tiny() + [dog, "--gemm", "onednn"], environment: absent)
        XCTAssertFalse(detect.signaled)
        XCTAssertEqual(detect.status, 2)
        XCTAssertEqual(detect.stderr, expected)
        let benchmark = try CLI.run(["benchmark", try TestData.path("cfg/yolov3-tiny.cfg"), "--runs", "1", "--warmup", "0",
                                     "--gemm", "onednn"], environment: absent)
        XCTAssertFalse(benchmark.signaled)
        XCTAssertEqual(benchmark.status, 2)
        XCTAssertEqual(benchmark.stderr, expected)
        let version = try CLI.run(["--version"], environment: absent)
        XCTAssertTrue(version.stdout.contains("gemm onednn: unavailable: oneDNN is not installed"), version.stdout)
        let openblas = try CLI.run(["detect"] + tiny() + [dog], environment: absent)
        XCTAssertEqual(openblas.status, 0, openblas.stderr)
        let bad = try CLI.run(["detect"] + tiny() + [dog, "--gemm", "mkl"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.hasPrefix("Error: The value 'mkl' is invalid for '--gemm <gemm>'. Please provide one of 'openblas' and 'onednn'."),
                      bad.stderr)
    }

    func testDetectOnOneDNNFindsDarknetsObjects() throws {
        let version = try CLI.run(["--version"])
        let line = version.stdout.split(separator: "\n").first { $0.hasPrefix("gemm onednn: ") }.map(String.init) ?? "no line"
        let loaded: Result<String, GEMMUnavailable> = line.hasPrefix("gemm onednn: dnnl_sgemm") ? .success(line)
            : .failure(GEMMUnavailable(text: line))
        _ = try TestTools.requireOneDNN(loaded)
        let result = try CLI.run(["detect"] + tiny() + [try TestData.path("data/dog.jpg"), "--gemm", "onednn", "--threads", "2"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let names = result.stdout.split(separator: "\n").dropFirst().map { String($0.prefix { $0 != ":" }) }.sorted()
        XCTAssertEqual(names, ["bicycle", "car", "car", "dog", "truck"], result.stdout)
    }

    struct GEMMUnavailable: Error, CustomStringConvertible {
        var text: String
        var description: String { text }
    }
}
