import Foundation
import TestSupport
import XCTest

/// `darknet-swift stream` through the real binary: frames on stdin, one JSON line per frame.
final class StreamCommandTests: XCTestCase {
    static let photos = ["dog", "horses", "person", "eagle", "dog"]

    func tinyArguments() throws -> [String] {
        [try TestData.path("cfg/yolov3-tiny.cfg"), try TestData.path("yolov3-tiny.weights")]
    }

    /// Class names and pixel boxes, sorted, from a `detections` array.
    func summary(_ object: [String: Any]) throws -> [String] {
        try XCTUnwrap(object["detections"] as? [[String: Any]]).map { d in
            let box = d["box"] as? [String: Int] ?? [:]
            return "\(d["name"] ?? "?") \(box["left"] ?? -1) \(box["top"] ?? -1) \(box["right"] ?? -1) \(box["bottom"] ?? -1)"
        }.sorted()
    }

    func detectLines(_ paths: [String]) throws -> [String: [String]] {
        let result = try CLI.run(["detect"] + tinyArguments() + paths + ["--format", "jsonl", "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        var byPath: [String: [String]] = [:]
        for line in result.stdout.split(separator: "\n") {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            byPath[try XCTUnwrap(object["path"] as? String)] = try summary(object)
        }
        return byPath
    }

    func testMJPEGStreamGivesOneLinePerFrameWithDetectsDetections() throws {
        let paths = try Self.photos.map { try TestData.path("data/\($0).jpg") }
        let expected = try detectLines(Array(Set(paths)))
        let stream = try CLI.temporaryFolder(self).appendingPathComponent("video.mjpeg")
        var bytes = Data()
        for path in paths { bytes += try Data(contentsOf: URL(fileURLWithPath: path)) }
        try bytes.write(to: stream)
        let result = try CLI.run(["stream"] + tinyArguments(), stdin: stream)
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, paths.count, result.stdout)
        for (index, line) in lines.enumerated() {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            XCTAssertEqual(object["frame"] as? Int, index)
            XCTAssertNotNil(object["latency"] as? Double)
            XCTAssertEqual(object["dropped"] as? Int, 0)
            XCTAssertEqual(try summary(object), expected[paths[index]], "frame \(index) = \(paths[index])")
        }
        XCTAssertTrue(result.stderr.contains("5 frames read, 5 processed, 0 dropped, 0 failed"), result.stderr)
    }

    func testAnnotatePipeWritesMJPEGAndMovesJSONToTheFile() throws {
        let folder = try CLI.temporaryFolder(self)
        let stream = folder.appendingPathComponent("video.mjpeg")
        let dog = try Data(contentsOf: URL(fileURLWithPath: try TestData.path("data/dog.jpg")))
        try (Data([0, 1, 2]) + dog + dog).write(to: stream)  // leading junk is skipped
        let jsonl = folder.appendingPathComponent("frames.jsonl")
        let result = try CLI.run(["stream"] + tinyArguments() + ["--annotate-pipe", "--jsonl", jsonl.path, "--smooth", "3"], stdin: stream)
        XCTAssertEqual(result.status, 0, result.stderr)
        let out = Array(result.stdoutData)
        XCTAssertEqual(Array(out.prefix(3)), [0xFF, 0xD8, 0xFF], "stdout starts with a JPEG")
        XCTAssertEqual(Array(out.suffix(2)), [0xFF, 0xD9], "and ends with one")
        let starts = (0..<out.count - 3).filter { out[$0] == 0xFF && out[$0 + 1] == 0xD8 && out[$0 + 2] == 0xFF }
        XCTAssertGreaterThanOrEqual(starts.count, 2, "two annotated frames")
        XCTAssertEqual(try String(contentsOf: jsonl, encoding: .utf8).split(separator: "\n").count, 2)
    }

    func testRawRGB24FramesMatchTheJPEGDetections() throws {
        let python = try TestTools.requireCocoPython()
        // Decoded with Pillow (pycocotools' venv) — both sides use libjpeg-turbo's default IDCT.
        let dog = try TestData.path("data/dog.jpg")
        let raw = try CLI.temporaryFolder(self).appendingPathComponent("dog.rgb")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", "import sys; from PIL import Image; d = Image.open(sys.argv[1]).convert('RGB').tobytes(); "
                             + "open(sys.argv[2], 'wb').write(d + d)", dog, raw.path]
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "Pillow could not decode \(dog)")
        let result = try CLI.run(["stream"] + tinyArguments() + ["--raw", "768x576"], stdin: raw)
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        let expected = try detectLines([dog])[dog]
        for line in lines {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            XCTAssertEqual(try summary(object), expected)
        }
        // A regular file that is not a whole number of frames fails before any frame (item 4).
        let wrong = try CLI.run(["stream"] + tinyArguments() + ["--raw", "700x576"], stdin: raw)
        XCTAssertEqual(wrong.status, 2, "the stream is not a whole number of frames")
        XCTAssertEqual(wrong.stdout, "")
        XCTAssertTrue(wrong.stderr.contains("--raw 700x576: stdin holds 2654208 bytes, not a whole number of 1209600-byte frames (2 frames and 235008 bytes)"), wrong.stderr)
        // Through a pipe it can only be known at the end, with the byte counts.
        let piped = try CLI.bash("cat \"$1\" | \"$0\" stream \"$2\" \"$3\" --raw 700x576 --quiet", [raw.path] + tinyArguments())
        XCTAssertEqual(piped.status, 1)
        XCTAssertEqual(piped.stdout.split(separator: "\n").count, 2, "the two whole frames were processed")
        XCTAssertTrue(piped.stderr.contains("--raw 700x576: the stream ended 235008 bytes into frame 2 (frames are 1209600 bytes; 2654208 bytes read in all)"), piped.stderr)
    }

    func testEndMarkerInsideASegmentDoesNotSplitTheFrame() throws {
        // An APP1 segment (as an EXIF thumbnail would) holding FF D9 right after SOI: a
        // splitter that searched for FF D9 would cut the frame there.
        let dog = try Data(contentsOf: URL(fileURLWithPath: try TestData.path("data/dog.jpg")))
        let app1 = Data([0xFF, 0xE1, 0x00, 0x08, 0xFF, 0xD8, 0xFF, 0xD9, 0x00, 0x00])
        let frame = dog.prefix(2) + app1 + dog.dropFirst(2)
        let stream = try CLI.temporaryFolder(self).appendingPathComponent("thumb.mjpeg")
        try (frame + frame).write(to: stream)
        let result = try CLI.run(["stream"] + tinyArguments() + ["--quiet"], stdin: stream)
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, result.stdout)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        XCTAssertEqual(try summary(object).count, 5, "the whole dog.jpg was decoded")
    }

    func testDropKeepsTheNewestFrameAndCountsTheRest() throws {
        let dog = try Data(contentsOf: URL(fileURLWithPath: try TestData.path("data/dog.jpg")))
        let stream = try CLI.temporaryFolder(self).appendingPathComponent("video.mjpeg")
        try Data(Array(repeating: dog, count: 8).joined()).write(to: stream)
        let result = try CLI.run(["stream"] + tinyArguments() + ["--drop"], stdin: stream)
        XCTAssertEqual(result.status, 0, result.stderr)
        let frames = try result.stdout.split(separator: "\n").map {
            try XCTUnwrap((JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["frame"] as? Int)
        }
        // However fast the frames arrive, the newest is never dropped, frame numbers only
        // grow, and every frame read is either processed or counted as dropped.
        XCTAssertEqual(frames.last, 7)
        XCTAssertEqual(frames, frames.sorted())
        let summary = try XCTUnwrap(result.stderr.split(separator: "\n").first { $0.contains("stream:") })
        XCTAssertTrue(summary.contains("8 frames read, \(frames.count) processed, \(8 - frames.count) dropped"), String(summary))
    }

    /// Issue #31, item 12: a fake APPn marker in the scan data, a frame cut in its scan and one
    /// cut in its header each cost that frame only: it gets an error line with its number,
    /// and every other frame keeps its number and its detections.
    func testCorruptFramesGiveErrorLinesAndTheOthersComeThrough() throws {
        let clean = try StreamFrames.dog(count: 12, step: 8, scale: 0.5)
        let folder = try CLI.temporaryFolder(self)
        let cleanStream = folder.appendingPathComponent("clean.mjpeg"), brokenStream = folder.appendingPathComponent("broken.mjpeg")
        try Data(clean.joined()).write(to: cleanStream)
        var broken = clean
        broken[3] = Corruption.fakeMarkerInScan(clean[3])
        broken[6] = Corruption.cutInScan(clean[6])
        broken[9] = Corruption.cutInHeader(clean[9])
        try Data(broken.joined()).write(to: brokenStream)
        let expected = try CLI.run(["stream"] + tinyArguments() + ["--quiet"], stdin: cleanStream)
        XCTAssertEqual(expected.status, 0, expected.stderr)
        let result = try CLI.run(["stream"] + tinyArguments(), stdin: brokenStream)
        XCTAssertEqual(result.status, 1, "frames failed")
        let good = expected.stdout.split(separator: "\n"), lines = result.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 12, result.stdout)
        for (index, line) in lines.enumerated() {
            let object = try XCTUnwrap(StreamFrames.object(line))
            XCTAssertEqual(object["frame"] as? Int, index)
            if [3, 6, 9].contains(index) {
                let error = try XCTUnwrap(object["error"] as? String, String(line))
                XCTAssertTrue(error.hasPrefix("frame \(index): "), error)
            } else {
                XCTAssertEqual(try summary(object), try summary(try XCTUnwrap(StreamFrames.object(good[index]))), "frame \(index)")
            }
        }
        XCTAssertTrue(result.stderr.contains("12 frames read, 9 processed, 0 dropped, 3 failed"), result.stderr)
    }

    func testOversizedFrameIsAClearError() throws {
        let stream = try CLI.temporaryFolder(self).appendingPathComponent("junk")
        // SOI, a scan header (one component), then scan data that never ends.
        try (Data([0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]) + Data(repeating: 0x11, count: 5000))
            .write(to: stream)
        let result = try CLI.run(["stream"] + tinyArguments() + ["--max-frame-bytes", "2048"], stdin: stream)
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("--max-frame-bytes 2048"), result.stderr)
    }
}
