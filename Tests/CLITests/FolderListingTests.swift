import Foundation
import TestSupport
import XCTest

/// Issue #31 items 3 and 14: `--recursive` visits each folder once however symlinks loop, and
/// file names that are not UTF-8 are processed (and printed escaped), not dropped.
final class FolderListingTests: XCTestCase {
    func testSymlinkLoopsAreVisitedOnce() throws {
        let root = try CLI.temporaryFolder(self)
        let photos = root.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos.appendingPathComponent("sub"), withIntermediateDirectories: true)
        let dog = try Data(contentsOf: URL(fileURLWithPath: try TestData.path("data/dog.jpg")))
        try dog.write(to: photos.appendingPathComponent("dog.jpg"))
        try dog.write(to: photos.appendingPathComponent("sub/puppy.jpg"))
        for (name, target) in [("l1", "."), ("l2", "."), ("up", ".."), ("sub/back", "..")] {
            try FileManager.default.createSymbolicLink(atPath: photos.appendingPathComponent(name).path, withDestinationPath: target)
        }
        let result = try CLI.run(["detect"] + CLI.tinyDetector() + [photos.path, "--recursive", "--format", "jsonl",
                                                                    "--max-detections", "1"], timeout: 300)
        XCTAssertEqual(result.status, 0, result.stderr)
        let paths = try CLI.objects(result.stdout).compactMap { $0["path"] as? String }
        XCTAssertEqual(paths.map { ($0 as NSString).lastPathComponent }.sorted(), ["dog.jpg", "puppy.jpg"], result.stdout)
        XCTAssertTrue(result.stderr.contains("2 images: 2 done, 0 failed"), result.stderr)
    }

    /// `café.jpg` in Latin-1 (E9): in a folder, named on the command line, with `--output-dir`.
    func testNamesThatAreNotUTF8() throws {
        let folder = try CLI.temporaryFolder(self)
        let photos = folder.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let dog = try Data(contentsOf: URL(fileURLWithPath: try TestData.path("data/dog.jpg")))
        let latin1 = Array("caf".utf8) + [0xE9] + Array(".jpg".utf8)
        try CLI.writeRaw(dog, folder: photos.path, name: latin1)
        try dog.write(to: photos.appendingPathComponent("plain.jpg"))
        let out = folder.appendingPathComponent("out")
        let folderRun = try CLI.run(["detect"] + CLI.tinyDetector() + [photos.path, "--format", "jsonl",
                                                                       "--output-dir", out.path], timeout: 300)
        XCTAssertEqual(folderRun.status, 0, folderRun.stderr)
        XCTAssertTrue(folderRun.stderr.contains("2 images: 2 done, 0 failed"), folderRun.stderr)
        let paths = try CLI.objects(folderRun.stdout).compactMap { $0["path"] as? String }
        XCTAssertEqual(paths, [photos.appendingPathComponent("caf\\xE9.jpg").path, photos.appendingPathComponent("plain.jpg").path])
        XCTAssertEqual(CLI.rawNames(in: out.path), [latin1, Array("plain.jpg".utf8)], "the annotated copy keeps the bytes of its name")

        let cfg = try TestData.path("cfg/yolov3-tiny.cfg"), weights = try TestData.path("yolov3-tiny.weights")
        let named = try CLI.shell("exec \"$BIN\" detect '\(cfg)' '\(weights)' \"$(printf '\(photos.path)/caf\\351.jpg')\"")
        XCTAssertEqual(named.status, 0, named.stderr)
        XCTAssertTrue(named.stdout.hasPrefix("\(photos.path)/caf\\xE9.jpg: Predicted in "), named.stdout)
        XCTAssertTrue(named.stdout.contains("\ndog: 56%"), named.stdout)
    }
}
