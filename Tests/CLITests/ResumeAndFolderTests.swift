import Foundation
import Imaging
import TestSupport
import XCTest

/// Issue #53 items 7 and 10 (and item 12's folder entries): a resume finishes what a stopped
/// run left half done, and a folder's entries that are not files to read are named, never
/// waited on.
final class ResumeAndFolderTests: XCTestCase {
    func photos(_ folder: URL, count: Int) throws -> URL {
        let photos = folder.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let small = try Image(contentsOf: try TestData.path("data/dog.jpg")).resized(width: 96, height: 72)
        for i in 0..<count { try small.write(to: photos.appendingPathComponent("p\(i).jpg").path) }
        return photos
    }

    /// Item 7: the label file of an image whose annotated image was never written (the run
    /// stopped in between) is replaced by `--skip-existing`, and `--force` may go with it.
    func testResumeFinishesImagesWithLeftoverLabels() throws {
        let folder = try CLI.temporaryFolder(self)
        let photos = try photos(folder, count: 3)
        let out = folder.appendingPathComponent("out"), labels = folder.appendingPathComponent("labels")
        try FileManager.default.createDirectory(at: labels, withIntermediateDirectories: true)
        try "stale\n".write(to: labels.appendingPathComponent("p1.txt"), atomically: true, encoding: .utf8)
        let arguments = try ["detect"] + CLI.tinyDetector() + [photos.path, "--size", "96", "--quiet",
                                                             "--output-dir", out.path, "--save-labels", labels.path]
        let resumed = try CLI.run(arguments + ["--skip-existing"])
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted(), ["p0.jpg", "p1.jpg", "p2.jpg"])
        XCTAssertNotEqual(try String(contentsOf: labels.appendingPathComponent("p1.txt"), encoding: .utf8), "stale\n")
        let forced = try CLI.run(arguments + ["--skip-existing", "--force"])
        XCTAssertEqual(forced.status, 0, forced.stderr)
    }

    /// Item 10: a FIFO named like an image in a folder is reported, not opened (opening it
    /// waited forever); item 12: so is a symlink to nothing, where it was silently dropped.
    func testFolderEntriesThatAreNotFiles() throws {
        let folder = try CLI.temporaryFolder(self)
        let photos = try photos(folder, count: 1)
        XCTAssertEqual(mkfifo(photos.appendingPathComponent("fifo.jpg").path, 0o600), 0)
        XCTAssertEqual(symlink("/nonexistent/photo.jpg", photos.appendingPathComponent("gone.jpg").path), 0)
        let result = try CLI.run(["detect"] + CLI.tinyDetector() + [photos.path, "--size", "96", "--format", "jsonl"],
                                 timeout: 600)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(try CLI.objects(result.stdout).count, 1)
        XCTAssertTrue(result.stderr.contains("\(photos.path)/fifo.jpg: a FIFO, not a regular file: not read"), result.stderr)
        XCTAssertTrue(result.stderr.contains("\(photos.path)/gone.jpg: a symbolic link to nothing: not read"), result.stderr)
    }

    /// Item 12: a folder reached through a symlink and by its own path is listed under the
    /// path first in byte order, whatever order `readdir` returns the entries in.
    func testRecursiveListingIsOrderedThroughSymlinks() throws {
        let folder = try CLI.temporaryFolder(self)
        let root = folder.appendingPathComponent("root")
        for name in ["m", "z"] {
            let sub = root.appendingPathComponent(name)
            _ = try photos(sub, count: 1)
        }
        // Links named before and after the real folders, so byte order and creation order differ.
        XCTAssertEqual(symlink("z", root.appendingPathComponent("a").path), 0)
        XCTAssertEqual(symlink("m", root.appendingPathComponent("y").path), 0)
        let result = try CLI.run(["detect"] + CLI.tinyDetector() + [root.path, "--recursive", "--size", "96", "--format", "jsonl"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let paths = try CLI.objects(result.stdout).compactMap { $0["path"] as? String }
        XCTAssertEqual(paths, ["a/photos/p0.jpg", "m/photos/p0.jpg"].map { root.path + "/" + $0 })
    }
}
