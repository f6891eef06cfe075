import Foundation
import TestSupport
import XCTest

/// Issue #53 item 12: the smaller faults, each through the binary.
final class SmallFaultsTests: XCTestCase {
    /// `--output-dir` naming a file fails at once, not once per image after inference.
    func testOutputDirThatIsAFileFailsFirst() throws {
        let folder = try CLI.temporaryFolder(self)
        let file = folder.appendingPathComponent("taken").path
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        let result = try CLI.run(["detect"] + CLI.tinyDetector() + [try TestData.path("data/dog.jpg"), "--output-dir", file])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertEqual(result.stdout, "", "no image was run")
        XCTAssertEqual(result.stderr, "darknet-swift: error: \(file): not a folder (a file has that name)\n")
    }

    /// A cfg line of 3 MB, or one holding NUL bytes, is quoted in part and made visible.
    func testCfgErrorsQuoteLinesInPart() throws {
        let folder = try CLI.temporaryFolder(self)
        let long = folder.appendingPathComponent("long.cfg")
        try Data(("[net]\nwidth=32\n" + String(repeating: "x", count: 3 << 20) + "\n").utf8).write(to: long)
        let result = try CLI.run(["summary", long.path])
        XCTAssertEqual(result.status, 2)
        XCTAssertLessThan(result.stderr.utf8.count, 400, String(result.stderr.prefix(400)))
        XCTAssertTrue(result.stderr.contains("… (3145648 more characters)"), String(result.stderr.prefix(400)))
        let nul = folder.appendingPathComponent("nul.cfg")
        try Data("[net]\nwidth=32\nab\0\u{1B}[2Jcd\n".utf8).write(to: nul)
        let shown = try CLI.run(["summary", nul.path])
        XCTAssertEqual(shown.status, 2)
        XCTAssertTrue(shown.stderr.contains("found 'ab\\u{0}\\u{1b}[2Jcd'"), shown.stderr)
        XCTAssertFalse(shown.stderr.contains("\0"), shown.stderr)
    }

    /// The activation-memory error names the cfg and the input size that caused it (two
    /// 1×1 convolutions of 72 filters at 4096×4096: 9 GiB of activations, refused before any
    /// is allocated).
    func testActivationLimitNamesTheCfgAndSize() throws {
        let folder = try CLI.temporaryFolder(self)
        let cfg = folder.appendingPathComponent("big.cfg").path
        let conv = "[convolutional]\nfilters=72\nsize=1\nstride=1\nactivation=linear\n"
        try ("[net]\nwidth=4096\nheight=4096\nchannels=3\n" + conv + conv).write(toFile: cfg, atomically: true, encoding: .utf8)
        let result = try CLI.run(["benchmark", cfg, "--runs", "1", "--warmup", "0"])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertEqual(result.stderr, "darknet-swift: error: \(cfg) at 4096x4096: the network would need 9216 MiB of activations, "
                       + "over the 8192 MiB limit (a smaller --size needs less)\n")
    }

    /// `--classes ""` would keep nothing: a usage error, not an empty answer.
    func testEmptyClassesIsAnError() throws {
        let result = try CLI.run(["detect"] + CLI.tinyDetector() + [try TestData.path("data/dog.jpg"), "--classes", " , "])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("--classes \" , \" names no class"), result.stderr)
    }

    /// `stream --raw` with sides whose product overflows is a usage error, not a trap.
    func testRawSizeOverflowIsAUsageError() throws {
        let result = try CLI.run(["stream"] + CLI.tinyDetector() + ["--raw", "9999999999x9999999999"])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertFalse(result.signaled)
    }
}
