import Foundation
import Imaging
import TestSupport
import XCTest

/// Issue #31 item 15: an annotated image is written under a temporary name and renamed into
/// place; the temporary is removed when the write fails (a full disk) and when a signal ends
/// the run mid-write.
final class TemporaryFileTests: XCTestCase {
    func leftovers(_ folder: URL) -> [String] {
        CLI.rawNames(in: folder.path).map { String(decoding: $0, as: UTF8.self) }.filter { $0.contains(".tmp-") }
    }

    /// Runs `process` and sends it `signal` the moment a temporary file appears in `folder`;
    /// returns whether one appeared, once the process has ended (300 s: a hang guard).
    func signalOnFirstTemporary(_ process: Process, in folder: URL, _ signal: Int32) throws -> Bool {
        try process.run()
        var seen = false
        let deadline = Date().addingTimeInterval(300)
        while process.isRunning && Date() < deadline {
            if !leftovers(folder).isEmpty {
                kill(process.processIdentifier, signal)
                seen = true
                break
            }
            usleep(200)
        }
        process.waitUntilExit()
        return seen
    }

    /// `ulimit -f` makes every write past 64 blocks fail (EFBIG, SIGXFSZ ignored): a disk that
    /// fills up. The annotated PNGs (about 700 KB) cannot be written; nothing is left behind.
    func testFailedWritesLeaveNoTemporary() throws {
        let folder = try CLI.temporaryFolder(self)
        let out = folder.appendingPathComponent("out")
        let photos = try ["dog", "horses", "eagle"].map { try TestData.path("data/\($0).jpg") }
        let arguments = (try CLI.tinyDetector() + photos).map { "'\($0)'" }.joined(separator: " ")
        let result = try CLI.shell("ulimit -f 64; trap '' XFSZ; exec \"$BIN\" detect \(arguments) --output-dir '\(out.path)' --quiet")
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 3, result.stderr)
        XCTAssertTrue(result.stderr.contains("\(out.path)/dog.jpg"), result.stderr)
        XCTAssertEqual(leftovers(out), [])
    }

    /// With SIGXFSZ at its default, the write past the limit kills the process in the middle
    /// of writing the temporary file: a signal at the worst moment, every time.
    func testSignalMidWriteLeavesNoTemporary() throws {
        let folder = try CLI.temporaryFolder(self)
        let out = folder.appendingPathComponent("out")
        let arguments = (try CLI.tinyDetector() + [try TestData.path("data/dog.jpg")]).map { "'\($0)'" }.joined(separator: " ")
        let result = try CLI.shell("ulimit -f 64; \"$BIN\" detect \(arguments) --output-dir '\(out.path)' --quiet; echo \"status $?\"")
        XCTAssertTrue(result.stdout.hasSuffix("status \(128 + SIGXFSZ)\n"), "killed by SIGXFSZ: \(result.stdout)")
        XCTAssertEqual(leftovers(out), [])
    }

    /// SIGTERM and SIGINT sent the moment a temporary file appears (it lives while a 20 MB PNG
    /// is written and renamed): the run ends by the signal and the temporary is gone.
    func testTerminationMidWriteLeavesNoTemporary() throws {
        let folder = try CLI.temporaryFolder(self)
        let noise = (0..<3).map { folder.appendingPathComponent("noise\($0).png").path }
        try NoiseImage.write(width: 3000, height: 2400, to: noise[0])
        for copy in noise.dropFirst() { try FileManager.default.copyItem(atPath: noise[0], toPath: copy) }
        for signal in [SIGTERM, SIGINT] {
            let out = folder.appendingPathComponent("out-\(signal)")
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            let process = Process()
            process.executableURL = CLI.binary
            process.arguments = try ["detect"] + CLI.tinyDetector() + noise + ["--output", out.path + "/", "--force", "--quiet"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            XCTAssertTrue(try signalOnFirstTemporary(process, in: out, signal), "a temporary file was seen")
            XCTAssertEqual(process.terminationReason, .uncaughtSignal)
            XCTAssertEqual(process.terminationStatus, signal)
            XCTAssertEqual(leftovers(out), [], "signal \(signal)")
        }
    }

    /// Issue #53 item 12: `stream --annotate-to` writes its frames through the same primitive,
    /// so SIGINT sent the moment a frame's temporary appears leaves none behind.
    func testStreamFramesLeaveNoTemporaryOnSignal() throws {
        let folder = try CLI.temporaryFolder(self)
        var generator = SplitMix64(state: 5)
        let noise = Image(width: 2400, height: 1800, channels: 3,
                          data: (0..<3 * 2400 * 1800).map { _ in Float(generator.next() % 256) / 255 })
        let frame = try noise.jpegData(quality: 95)
        let frames = folder.appendingPathComponent("frames.mjpeg")
        try Data([UInt8]((0..<4).flatMap { _ in frame })).write(to: frames)
        let out = folder.appendingPathComponent("out")
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = try ["stream"] + CLI.tinyDetector() + ["--size", "96", "--annotate-to", out.path, "--quiet"]
        process.standardInput = try FileHandle(forReadingFrom: frames)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        XCTAssertTrue(try signalOnFirstTemporary(process, in: out, SIGINT), "a temporary file was seen")
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        XCTAssertEqual(leftovers(out), [])
    }
}

/// A PNG of random pixels (it does not compress: the annotated copy is as large as the pixels).
enum NoiseImage {
    static func write(width: Int, height: Int, to path: String) throws {
        var generator = SplitMix64(state: 31)
        let data = (0..<3 * width * height).map { _ in Float(generator.next() % 256) / 255 }
        try Image(width: width, height: height, channels: 3, data: data).write(to: path)
    }
}
