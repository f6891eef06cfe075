import Foundation
import TestSupport
import XCTest

/// Issue #31 item 7 and the `--output-dir` frictions: a trailing slash means a folder, a file
/// name with several inputs is an error; `--skip-existing` resumes a run; two inputs of the
/// same name never overwrite each other's annotated image, even with `--force`.
final class OutputPathTests: XCTestCase {
    func testTrailingSlashIsAlwaysAFolder() throws {
        let folder = try CLI.temporaryFolder(self)
        let dog = try TestData.path("data/dog.jpg")
        let one = try CLI.run(["detect"] + CLI.tinyDetector() + [dog, "--output", folder.path + "/newdir/"])
        XCTAssertEqual(one.status, 0, one.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path + "/newdir"), ["dog-detections.jpg"])

        let single = folder.appendingPathComponent("single.png").path
        let two = try CLI.run(["detect"] + CLI.tinyDetector() + [dog, try TestData.path("data/horses.jpg"), "--output", single])
        XCTAssertEqual(two.status, 2, two.stderr)
        XCTAssertEqual(two.stderr, "darknet-swift: error: several images given: --output \(single) names a file (end it with / for a folder)\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: single), "nothing created")
    }

    func testSkipExistingResumesIntoTheSameFolder() throws {
        let folder = try CLI.temporaryFolder(self)
        let photos = folder.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        for name in ["dog", "horses", "eagle"] {
            try FileManager.default.copyItem(atPath: try TestData.path("data/\(name).jpg"), toPath: photos.appendingPathComponent("\(name).jpg").path)
        }
        let out = folder.appendingPathComponent("out")
        let first = try CLI.run(["detect"] + CLI.tinyDetector() + [photos.path, "--output-dir", out.path, "--shard", "1/2", "--quiet"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted(), ["dog.jpg", "horses.jpg"])
        let kept = try Data(contentsOf: out.appendingPathComponent("dog.jpg"))
        try Data("not touched".utf8).write(to: out.appendingPathComponent("dog.jpg"))

        let resumed = try CLI.run(["detect"] + CLI.tinyDetector() + [photos.path, "--output-dir", out.path, "--skip-existing",
                                                                     "--format", "jsonl"])
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        let paths = try CLI.objects(resumed.stdout).compactMap { $0["path"] as? String }
        XCTAssertEqual(paths, [photos.appendingPathComponent("eagle.jpg").path], "only the image without an output is run")
        XCTAssertTrue(resumed.stderr.contains("3 images: 1 done, 0 failed, 2 skipped (output exists)"), resumed.stderr)
        XCTAssertEqual(try Data(contentsOf: out.appendingPathComponent("dog.jpg")), Data("not touched".utf8))
        XCTAssertNotEqual(kept.count, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("eagle.jpg").path))

        // --force goes with --skip-existing (issue #53 item 7): done images are still skipped.
        let both = try CLI.run(["detect"] + CLI.tinyDetector() + [photos.path, "--output-dir", out.path, "--skip-existing", "--force"])
        XCTAssertEqual(both.status, 0, both.stderr)
        XCTAssertTrue(both.stderr.contains("3 images: 0 done, 0 failed, 3 skipped (output exists)"), both.stderr)
        let alone = try CLI.run(["detect"] + CLI.tinyDetector() + [photos.path, "--skip-existing"])
        XCTAssertEqual(alone.status, 2)
        XCTAssertTrue(alone.stderr.contains("--skip-existing"), alone.stderr)
    }

    func testTwoInputsOfTheSameNameNeverOverwriteEachOther() throws {
        let folder = try CLI.temporaryFolder(self)
        for sub in ["a", "b"] { try FileManager.default.createDirectory(at: folder.appendingPathComponent(sub), withIntermediateDirectories: true) }
        let a = folder.appendingPathComponent("a/photo.jpg").path, b = folder.appendingPathComponent("b/photo.jpg").path
        try FileManager.default.copyItem(atPath: try TestData.path("data/dog.jpg"), toPath: a)
        try FileManager.default.copyItem(atPath: try TestData.path("data/horses.jpg"), toPath: b)
        let out = folder.appendingPathComponent("out")
        for (option, written) in [("--output-dir", "photo.jpg"), ("--output", "photo-detections.jpg")] {
            try? FileManager.default.removeItem(at: out)
            let target = out.appendingPathComponent(written).path
            let result = try CLI.run(["detect"] + CLI.tinyDetector() + [a, b, option, out.path + "/", "--force", "--quiet"])
            XCTAssertEqual(result.status, 1, "\(option): \(result.stderr)")
            XCTAssertEqual(result.stderr, "darknet-swift: \(b): \(target) was written for \(a) in this run (two inputs with the same name)\n",
                           option)
            let annotated = try Data(contentsOf: URL(fileURLWithPath: target))
            XCTAssertEqual(annotated.count, try Data(contentsOf: URL(fileURLWithPath: try referenceAnnotation(a, folder))).count,
                           "\(option): the first input's annotated image is kept")
        }
    }

    /// The annotated image of `input` alone.
    func referenceAnnotation(_ input: String, _ folder: URL) throws -> String {
        let target = folder.appendingPathComponent("reference-\(UUID().uuidString).jpg").path
        let result = try CLI.run(["detect"] + CLI.tinyDetector() + [input, "--output", target])
        XCTAssertEqual(result.status, 0, result.stderr)
        return target
    }
}
