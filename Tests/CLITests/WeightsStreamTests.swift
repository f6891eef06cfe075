import Foundation
import TestSupport
import XCTest

/// Issue #53 item 8: weights that are not a regular file with a UTF-8 name are never read
/// past what the cfg needs: a device stops at that size, a regular file with a Latin-1 name
/// is mapped (its size refused before it is read) like any other.
final class WeightsStreamTests: XCTestCase {
    /// `/dev/zero` as weights: refused once it passes the cfg's size (yolov3-tiny: 35 MB),
    /// not read to the 8 GiB stream limit.
    func testDeviceWeightsStopAtTheModelsSize() throws {
        let cfg = try TestData.path("cfg/yolov3-tiny.cfg")
        let errors = try CLI.temporaryFolder(self).appendingPathComponent("stderr").path
        let run = try CLI.resources("exec \"$BIN\" benchmark '\(cfg)' /dev/zero --runs 1 --warmup 0 2>'\(errors)'")
        let stderr = try String(contentsOfFile: errors, encoding: .utf8)
        XCTAssertEqual(run.status, 2, stderr)
        XCTAssertTrue(stderr.hasPrefix("darknet-swift: error: /dev/zero"), stderr)
        XCTAssertLessThan(run.kibibytes, 400_000, "read far past the cfg's 35 MB")
    }

    /// A 4 GiB sparse file whose name is Latin-1 (`w\xE9.weights`): mapped, so refused as too
    /// long before any of it is read.
    func testLatin1NamedWeightsAreMapped() throws {
        let folder = try CLI.temporaryFolder(self)
        let cfg = try TestData.path("cfg/yolov3-tiny.cfg")
        let name = Array(folder.path.utf8) + Array("/w".utf8) + [0xE9] + Array(".weights".utf8) + [0]
        let fd = name.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT, 0o644) } }
        XCTAssertGreaterThanOrEqual(fd, 0)
        var header: [Int32] = [0, 2, 0, 0, 0]
        _ = write(fd, &header, 20)
        XCTAssertEqual(ftruncate(fd, 4 << 30), 0)
        close(fd)
        let errors = folder.appendingPathComponent("stderr").path
        let run = try CLI.resources("exec \"$BIN\" benchmark '\(cfg)' \"$(printf '\(folder.path)/w\\351.weights')\" --runs 1 --warmup 0 2>'\(errors)'")
        let stderr = try String(contentsOfFile: errors, encoding: .utf8)
        XCTAssertEqual(run.status, 2, stderr)
        XCTAssertTrue(stderr.contains("w\\xE9.weights"), stderr)
        XCTAssertLessThan(run.kibibytes, 400_000, "the 4 GiB file was read: \(stderr)")
    }
}
