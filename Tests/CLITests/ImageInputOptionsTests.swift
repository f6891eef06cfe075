import Foundation
import TestSupport
import XCTest

/// The inputs `detect` and `classify` share (`ImageInputOptions`), through the real binary.
final class ImageInputOptionsTests: XCTestCase {
    /// Checked while parsing, before the model loads: the cfg need not exist.
    func testBothCommandsAskForAnInputAndOneUseOfStdin() throws {
        for command in ["detect", "classify"] {
            let none = try CLI.run([command, "/nonexistent.cfg", "/nonexistent.weights"])
            XCTAssertEqual(none.status, 2, "\(command): \(none.stderr)")
            XCTAssertTrue(none.stderr.contains("give at least one image, folder or --list"), "\(command): \(none.stderr)")
            let twice = try CLI.run([command, "/nonexistent.cfg", "/nonexistent.weights", "-", "--list", "-"])
            XCTAssertEqual(twice.status, 2, "\(command): \(twice.stderr)")
            XCTAssertTrue(twice.stderr.contains("stdin can hold the image - or the --list -, not both"),
                          "\(command): \(twice.stderr)")
        }
    }

    /// A folder with a photo one level down: found with `--recursive` only, and a `--list`
    /// naming it is read, by both commands.
    func testRecursiveAndListReachBothCommands() throws {
        let folder = try CLI.temporaryFolder(self)
        let inner = folder.appendingPathComponent("inner")
        try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
        let photo = inner.appendingPathComponent("dog.jpg")
        try FileManager.default.copyItem(atPath: try TestData.path("data/dog.jpg"), toPath: photo.path)
        let list = folder.appendingPathComponent("list.txt")
        try (photo.path + "\n").write(to: list, atomically: true, encoding: .utf8)
        let detector = [try TestData.path("cfg/yolov3-tiny.cfg"), try TestData.path("yolov3-tiny.weights")]
        let classifier = try CLI.tinyClassifier(in: folder)
        for (command, model) in [("detect", detector), ("classify", [classifier.cfg, classifier.weights])] {
            let flat = try CLI.run([command] + model + [folder.path, "--format", "jsonl", "--quiet"])
            XCTAssertEqual(flat.stdout, "", "\(command): a sub-folder is not read without --recursive")
            for extra in [[folder.path, "--recursive"], ["--list", list.path]] {
                let result = try CLI.run([command] + model + extra + ["--format", "jsonl", "--quiet"])
                XCTAssertEqual(result.status, 0, "\(command) \(extra): \(result.stderr)")
                XCTAssertTrue(result.stdout.contains("\"path\":\(String(reflecting: photo.path))"),
                              "\(command) \(extra): \(result.stdout)")
            }
        }
    }
}
