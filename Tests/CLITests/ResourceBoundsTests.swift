import Foundation
import Imaging
import TestSupport
import XCTest

/// Issue #53 items 5 and 6: work and memory that grow with what a run does, not with the
/// square of its inputs nor with every tile at once. Measured on the child process (peak RSS,
/// CPU seconds), never by a wall clock; tools/test runs this class alone.
final class ResourceBoundsTests: XCTestCase {
    /// `CheapDetector` (a 32×32 max pool first) with synthetic weights, so a run's cost is the CLI's own.
    static func cheapDetector(in folder: URL, size: Int) throws -> [String] {
        let cfg = folder.appendingPathComponent("cheap.cfg").path
        try CheapDetector.cfg(size: size, pool: 32).write(toFile: cfg, atomically: true, encoding: .utf8)
        let weights = folder.appendingPathComponent("cheap.weights").path
        let synth = try CLI.run(["synth-weights", cfg, weights])
        XCTAssertEqual(synth.status, 0, synth.stderr)
        return [cfg, weights]
    }

    /// Item 5: `--tiles 64x64` on a 768×576 photo is 4,096 network inputs of 224×224 (600 KB
    /// each, 2.4 GB together): prepared a batch at a time, the run stays far below that.
    func testTilesArePreparedBatchByBatch() throws {
        let folder = try CLI.temporaryFolder(self)
        let model = try Self.cheapDetector(in: folder, size: 224)
        let photo = folder.appendingPathComponent("photo.jpg").path
        let dog = try Image(contentsOf: try TestData.path("data/dog.jpg"))
        try dog.resized(width: 768, height: 576).write(to: photo)
        let quoted = (model + [photo]).map { "'\($0)'" }.joined(separator: " ")
        let run = try CLI.resources("exec \"$BIN\" detect \(quoted) --tiles 64x64 --format jsonl --quiet")
        XCTAssertEqual(run.status, 0)
        XCTAssertLessThan(run.kibibytes, 1_000_000, "4,096 prepared tiles would be 2,400,000 KiB")
    }

    /// Item 6: a `--skip-existing` resume over finished images does a constant amount of work
    /// per skipped image: 120,000 of them cost about four times what 30,000 cost (CPU seconds
    /// past a run of one), not sixteen times as a pass over the waiting list per image did.
    /// `--no-pipeline` runs the same bookkeeping on one thread, so the CPU seconds are not
    /// those of two threads handing items over (futex waits that grow with the machine's load);
    /// `testFailedInputsAreReportedAtOnce` covers the pipelined loop.
    func testSkippedInputsCostLinearWork() throws {
        let folder = try CLI.temporaryFolder(self)
        let model = try Self.cheapDetector(in: folder, size: 64)
        let out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let count = 120_000
        var list = ""
        for i in 0..<count {
            let name = "i\(i).jpg"
            XCTAssertTrue(FileManager.default.createFile(atPath: out.appendingPathComponent(name).path, contents: nil))
            list += "photos/\(name)\n"
        }
        let lines = list.split(separator: "\n", omittingEmptySubsequences: true)
        func cpu(_ n: Int) throws -> Double {
            let file = folder.appendingPathComponent("list-\(n)").path
            try (lines.prefix(n).joined(separator: "\n") + (n > 0 ? "\n" : "")).write(toFile: file, atomically: true, encoding: .utf8)
            let quoted = model.map { "'\($0)'" }.joined(separator: " ")
            let run = try CLI.resources("exec \"$BIN\" detect \(quoted) --list '\(file)' --output-dir '\(out.path)' --skip-existing --no-pipeline")
            XCTAssertEqual(run.status, 0, "\(n) skipped")
            return run.cpuSeconds
        }
        let none = try cpu(1), small = try cpu(count / 4), large = try cpu(count)
        XCTAssertLessThan(large - none, 8 * max(small - none, 0.01),
                          "CPU seconds: \(none) for one, \(small) for \(count / 4), \(large) for \(count)")
    }

    /// Item 11: `benchmark`'s table for a `[route]` over 1,000 layers (every row padded to the
    /// route's options, about 4,900 columns) costs about what its JSON costs, not minutes.
    func testBenchmarkTableOfAWideRouteIsCheap() throws {
        let folder = try CLI.temporaryFolder(self)
        var cfg = "[net]\nwidth=8\nheight=8\nchannels=1\n"
        for _ in 0..<1000 { cfg += "[maxpool]\nsize=1\nstride=1\n" }
        cfg += "[route]\nlayers=" + (0..<1000).map(String.init).joined(separator: ",") + "\n"
        let path = folder.appendingPathComponent("wide.cfg").path
        try cfg.write(toFile: path, atomically: true, encoding: .utf8)
        func cpu(_ format: String) throws -> Double {
            let run = try CLI.resources("exec \"$BIN\" benchmark '\(path)' --runs 1 --warmup 0 --format \(format)")
            XCTAssertEqual(run.status, 0, format)
            return run.cpuSeconds
        }
        let json = try cpu("json"), table = try cpu("table")
        XCTAssertLessThan(table, 3 * json + 2, "CPU seconds: table \(table), JSON \(json)")
    }

    /// Item 11: `--image-ids` with a 60 MB COCO annotations file reads its `images` and steps
    /// over the rest: far below the gigabyte a parsed object tree of it takes.
    func testImageIdsFromALargeAnnotationsFileStayBounded() throws {
        let folder = try CLI.temporaryFolder(self)
        let ids = folder.appendingPathComponent("instances.json")
        var text = "{\"info\": {\"year\": 2017}, \"images\": [{\"file_name\": \"dog.jpg\", \"id\": 4242, \"width\": 768}"
        for i in 0..<1000 { text += ", {\"file_name\": \"x\\u00e9\(i).jpg\", \"id\": \(i)}" }
        text += "], \"annotations\": ["
        let annotation = "{\"id\": 1, \"image_id\": 2, \"bbox\": [1.5, 2, 3, 4], \"area\": 12.0, \"category_id\": 18, \"iscrowd\": 0, \"note\": \"a \\\"quoted\\\" ] }\"}"
        text += [String](repeating: annotation, count: 600_000).joined(separator: ",") + "]}"
        try text.write(to: ids, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("out.json").path
        let arguments = try (CLI.tinyDetector() + [try TestData.path("data/dog.jpg")]).map { "'\($0)'" }.joined(separator: " ")
        let run = try CLI.resources("exec \"$BIN\" detect \(arguments) --size 96 --format coco --image-ids '\(ids.path)' > '\(out)'")
        XCTAssertEqual(run.status, 0)
        XCTAssertLessThan(run.kibibytes, 500_000, "a parsed object tree of 60 MB is over 1,000,000 KiB")
        let results = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [[String: Any]])
        XCTAssertTrue(results.allSatisfy { $0["image_id"] as? Int == 4242 }, "\(results.prefix(2))")
    }

    /// Item 6: in the pipelined loop a failed input is reported when it fails, not held until
    /// the next image that runs: 100 missing paths on a `--list -` left open are all named on
    /// stderr before the list ends (the wait is a hang guard, not a timing). The model's
    /// warning about its class names is not counted.
    func testFailedInputsAreReportedAtOnce() throws {
        let folder = try CLI.temporaryFolder(self)
        let model = try Self.cheapDetector(in: folder, size: 64)
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = ["detect"] + model + ["--list", "-", "--quiet"]
        let input = Pipe()
        let errors = folder.appendingPathComponent("stderr")
        XCTAssertTrue(FileManager.default.createFile(atPath: errors.path, contents: nil))
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        input.fileHandleForWriting.write(Data((0..<100).map { "missing/m\($0).jpg\n" }.joined().utf8))
        var reported = 0
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline && process.isRunning && reported < 100 {
            // The failures only: the model's class-names warning is a line of stderr too.
            reported = (try? String(contentsOf: errors, encoding: .utf8))?.split(separator: "\n")
                .filter { $0.hasSuffix(": no such file") }.count ?? 0
            usleep(20_000)
        }
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        XCTAssertEqual(reported, 100, "failures reported while the list was open")
        XCTAssertEqual(process.terminationStatus, 1)
    }
}
