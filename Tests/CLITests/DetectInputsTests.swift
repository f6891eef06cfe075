import Foundation
import TestSupport
import XCTest

/// `detect` on folders, lists and shards, through the real binary with the real yolov3-tiny weights.
final class DetectInputsTests: XCTestCase {
    func tinyArguments() throws -> [String] {
        [try TestData.path("cfg/yolov3-tiny.cfg"), try TestData.path("yolov3-tiny.weights")]
    }

    /// A folder with 3 good images (odd names), a corrupt JPEG, an empty .png, a text file
    /// named .jpg and a non-image file (skipped by extension).
    func makeFolder() throws -> (folder: URL, good: [String]) {
        let folder = try CLI.temporaryFolder(self)
        let dog = try Data(contentsOf: URL(fileURLWithPath: try TestData.path("data/dog.jpg")))
        let good = ["say \"hi\", dog.jpg", "naïve 犬 ü.jpg", "plain.JPG"]
        for name in good { try dog.write(to: folder.appendingPathComponent(name)) }
        try dog.prefix(dog.count / 3).write(to: folder.appendingPathComponent("corrupt.jpg"))
        try Data().write(to: folder.appendingPathComponent("empty.png"))
        try Data("hello".utf8).write(to: folder.appendingPathComponent("text.jpg"))
        try Data("notes".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        return (folder, good.map { folder.appendingPathComponent($0).path })
    }

    func testFolderWithBadFilesCountsFailuresAndExitsOne() throws {
        let (folder, good) = try makeFolder()
        let result = try CLI.run(["detect"] + tinyArguments() + [folder.path, "--format", "jsonl"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("6 images: 3 done, 3 failed, 1 non-image files skipped"), result.stderr)
        for bad in ["corrupt.jpg", "empty.png", "text.jpg"] {
            XCTAssertTrue(result.stderr.contains(folder.appendingPathComponent(bad).path), "\(bad) reported: \(result.stderr)")
        }
        let lines = result.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 3, result.stdout)
        var paths: [String] = []
        for line in lines {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
            paths.append(try XCTUnwrap(object["path"] as? String))
            XCTAssertEqual(object["width"] as? Int, 768)
            XCTAssertEqual(object["height"] as? Int, 576)
            let timing = try XCTUnwrap(object["timing"] as? [String: Double])
            XCTAssertGreaterThan(try XCTUnwrap(timing["inference"]), 0)
            let detections = try XCTUnwrap(object["detections"] as? [[String: Any]])
            XCTAssertEqual(detections.compactMap { $0["name"] as? String }.sorted(), ["bicycle", "car", "car", "dog", "truck"])
        }
        XCTAssertEqual(Set(paths), Set(good), "every good image once, names escaped and read back exactly")
    }

    func testListFromStdinAndCSVQuoting() throws {
        let (_, good) = try makeFolder()
        let list = try CLI.temporaryFolder(self).appendingPathComponent("list.txt")
        try (good.joined(separator: "\n") + "\n").write(to: list, atomically: true, encoding: .utf8)
        let result = try CLI.run(["detect"] + tinyArguments() + ["--list", "-", "--format", "csv", "--classes", "dog"], stdin: list)
        XCTAssertEqual(result.status, 0, result.stderr)
        let rows = result.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        XCTAssertEqual(rows.first, "path,width,height,class_id,name,confidence,left,top,right,bottom,x,y,w,h")
        XCTAssertEqual(rows.count, 4, "one dog per image: \(rows)")
        // RFC 4180: the name with a comma and quotes is quoted, inner quotes doubled.
        let quoted = "\"" + good[0].replacingOccurrences(of: "\"", with: "\"\"") + "\",768,576,16,dog,"
        XCTAssertTrue(rows.contains { $0.hasPrefix(quoted) }, rows.joined(separator: "\n"))
    }

    /// A line longer than 64 KiB is one failure naming its line, whether it arrives with its
    /// newline in the same read (70 KB) or not (200 KB); the lines after it are still read.
    func testOverlongListLinesAreSkippedNotTheRestOfTheList() throws {
        let dog = try TestData.path("data/dog.jpg"), eagle = try TestData.path("data/eagle.jpg")
        let list = try CLI.temporaryFolder(self).appendingPathComponent("list.txt")
        let lines = [dog, String(repeating: "a", count: 70_000), String(repeating: "b", count: 200_000), eagle]
        try (lines.joined(separator: "\n") + "\n").write(to: list, atomically: true, encoding: .utf8)
        let result = try CLI.run(["detect"] + tinyArguments() + ["--list", list.path, "--format", "jsonl", "--quiet"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(try CLI.objects(result.stdout).compactMap { $0["path"] as? String }, [dog, eagle])
        XCTAssertTrue(result.stderr.contains("list.txt:2: longer than 65536 bytes"), result.stderr)
        XCTAssertTrue(result.stderr.contains("list.txt:3: longer than 65536 bytes"), result.stderr)
        XCTAssertFalse(result.stderr.contains("aaaaaaaaaa"), "the long line is not echoed")
    }

    /// An image whose annotated file exists (no --force) fails, naming --force and
    /// --skip-existing (the resume that keeps a `>>` output free of repeats), and its record
    /// is written all the same: its detections were computed (issue #51).
    func testImageWhoseAnnotationFailsKeepsItsRecord() throws {
        let folder = try CLI.temporaryFolder(self)
        let out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: out.appendingPathComponent("dog.jpg"))
        let dog = try TestData.path("data/dog.jpg"), eagle = try TestData.path("data/eagle.jpg")
        let result = try CLI.run(["detect"] + tinyArguments() + [dog, eagle, "--output-dir", out.path, "--format", "jsonl", "--quiet"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(try CLI.objects(result.stdout).compactMap { $0["path"] as? String }, [dog, eagle])
        XCTAssertTrue(result.stderr.contains("dog.jpg already exists (use --force to overwrite it, or --skip-existing"), result.stderr)
        XCTAssertEqual(try Data(contentsOf: out.appendingPathComponent("dog.jpg")), Data("mine".utf8), "not overwritten")
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("eagle.jpg").path))
    }

    func testShardsPartitionTheInputs() throws {
        let folder = try CLI.temporaryFolder(self)
        let dog = try Data(contentsOf: URL(fileURLWithPath: try TestData.path("data/dog.jpg")))
        for i in 0..<5 { try dog.write(to: folder.appendingPathComponent("img\(i).jpg")) }
        var seen: [[String]] = []
        for k in 1...3 {
            let result = try CLI.run(["detect"] + tinyArguments() + [folder.path, "--format", "jsonl", "--shard", "\(k)/3",
                                                                       "--max-detections", "1", "--quiet"])
            XCTAssertEqual(result.status, 0, result.stderr)
            seen.append(try result.stdout.split(separator: "\n").map {
                let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
                XCTAssertEqual((object["detections"] as? [Any])?.count, 1, "--max-detections 1")
                return try XCTUnwrap(object["path"] as? String)
            })
        }
        // Sorted names img0...img4, i mod 3 = K-1: shard 1 takes 0 and 3, 2 takes 1 and 4, 3 takes 2.
        XCTAssertEqual(seen.map { $0.map { ($0 as NSString).lastPathComponent } },
                       [["img0.jpg", "img3.jpg"], ["img1.jpg", "img4.jpg"], ["img2.jpg"]])
        XCTAssertEqual(Set(seen.joined()).count, 5, "union is all, disjoint")
        let bad = try CLI.run(["detect"] + tinyArguments() + [folder.path, "--shard", "4/3"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("--shard"), bad.stderr)
    }

    func testOutputDirKeepsNamesAndRefusesTheInputFolder() throws {
        let (folder, _) = try makeFolder()
        let refused = try CLI.run(["detect"] + tinyArguments() + [folder.path, "--output-dir", folder.path])
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.stderr.contains("input folder"), refused.stderr)
        let out = try CLI.temporaryFolder(self)
        let result = try CLI.run(["detect"] + tinyArguments() + [folder.path, "--output-dir", out.path, "--quiet"])
        XCTAssertEqual(result.status, 1, "the bad files still fail")
        let written = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        XCTAssertEqual(written, ["naïve 犬 ü.jpg", "plain.JPG", "say \"hi\", dog.jpg"].sorted())
        let header = try Data(contentsOf: out.appendingPathComponent("plain.JPG")).prefix(3)
        XCTAssertEqual(Array(header), [0xFF, 0xD8, 0xFF], "a JPEG, as the name says")
    }

    func testPipelineAndSequentialGiveTheSameOutput() throws {
        let (folder, _) = try makeFolder()
        let args = ["detect"] + (try tinyArguments()) + [folder.path, "--format", "csv", "--quiet"]
        let pipelined = try CLI.run(args)
        let sequential = try CLI.run(args + ["--no-pipeline"])
        XCTAssertEqual(pipelined.status, 1)
        XCTAssertEqual(pipelined.stdout, sequential.stdout)
        XCTAssertEqual(pipelined.stdout.components(separatedBy: "\r\n").count, 1 + 3 * 5 + 1, pipelined.stdout)
    }
}
