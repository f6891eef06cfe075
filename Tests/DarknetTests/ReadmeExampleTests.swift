import Darknet
import Foundation
import Imaging
import TestSupport
import XCTest
import YOLO

/// The README's library snippets, compiled and run here; `DocSnippet` checks that the README
/// shows exactly this code.
final class ReadmeExampleTests: XCTestCase {
    func testLibrarySnippet() throws {
        try DocSnippet.assertSame("readme-library", in: "README.md")
        // The snippet uses paths relative to the package root: run it in a folder whose
        // `weights` links to the fetched data, wherever DARKNET_SWIFT_DATA points.
        _ = try TestData.path("yolov3-tiny.weights")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("weights"), withDestinationURL: TestData.root)
        let previous = FileManager.default.currentDirectoryPath
        _ = FileManager.default.changeCurrentDirectoryPath(folder.path)
        addTeardownBlock {
            _ = FileManager.default.changeCurrentDirectoryPath(previous)
            try? FileManager.default.removeItem(at: folder)
        }
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        // snippet: readme-library
        let detector = try Detector(cfg: "weights/cfg/yolov3-tiny.cfg",
                                    weights: "weights/yolov3-tiny.weights",
                                    options: DetectorOptions(threshold: 0.5, nmsThreshold: 0.45))
        let names = try ClassNames.load(contentsOf: "weights/data/coco.names")
        let image = try Image(contentsOf: "weights/data/dog.jpg")
        for detection in try detector.detect(in: image) {
            let box = detection.pixelBox(imageWidth: image.width, imageHeight: image.height)
            print(names[detection.classId], detection.confidence, box.left, box.top, box.right, box.bottom)
        }
        // end snippet

        // darknet's five detections on dog.jpg (DetectorTests checks them against darknet).
        XCTAssertEqual(printed.map { $0.split(separator: " ")[0] }.sorted(), ["bicycle", "car", "car", "dog", "truck"])
        XCTAssertTrue(printed.contains { $0.hasPrefix("dog 0.56") }, "\(printed)")
    }

    /// README's "Where it stands" is the table `tools/bench-peers --readme` writes, under its
    /// one-line header (commit, CPU, BLAS core, date) with a link to bench-log, and no other
    /// dated text: measurements belong in docs/bench-log.md, refreshed there per session.
    func testWhereItStandsIsGenerated() throws {
        let readme = try String(contentsOf: DocSnippet.root.appendingPathComponent("README.md"), encoding: .utf8)
        let sections = readme.components(separatedBy: "\n## ")
        let section = try XCTUnwrap(sections.first { $0.hasPrefix("Where it stands\n") }, "README has no 'Where it stands'")
        let lines = section.components(separatedBy: "\n")
        let begin = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("<!-- bench-peers --readme: begin") })
        let end = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("<!-- bench-peers --readme: end") })
        XCTAssertLessThan(begin + 4, end, "the generated part holds a header and a table")
        let header = lines[begin + 1]
        XCTAssertNotNil(header.range(of: #"^Commit `[0-9a-f]{7,40}` · .+ · .*core .+ · \d{4}-\d{2}-\d{2} · .+every run: \[docs/bench-log\.md\]\(docs/bench-log\.md\)$"#,
                                     options: .regularExpression), "header: \(header)")
        XCTAssertTrue(lines[(begin + 3)..<end].allSatisfy { $0.hasPrefix("|") }, "the table follows the header")
        let outside = lines[..<begin] + lines[(end + 1)...]
        for line in outside {
            XCTAssertNil(line.range(of: #"\d{4}-\d{2}-\d{2}|`[0-9a-f]{7,40}`"#, options: .regularExpression),
                         "a date or a commit outside the generated table: \(line)")
        }
    }

    /// A BGRA camera frame with padded rows (dog.jpg's pixels, PAL-sized) and a model from
    /// memory: the same detections as the photo from its file through the model from files.
    func testMemorySnippet() throws {
        try DocSnippet.assertSame("readme-memory", in: "README.md")
        let cfgText = try String(contentsOfFile: try TestData.cfg("yolov3-tiny"), encoding: .utf8)
        let weightsData = try Data(contentsOf: URL(fileURLWithPath: try TestData.path("yolov3-tiny.weights")))
        let dog = try Image(contentsOf: try TestData.path("data/dog.jpg"))
        XCTAssertEqual([dog.width, dog.height], [768, 576])
        let rowBytes = 768 * 4 + 64
        var bgraBytes = [UInt8](repeating: 0, count: rowBytes * 576)
        for y in 0..<576 {
            for x in 0..<768 {
                for (channel, offset) in [(2, 0), (1, 1), (0, 2), (-1, 3)] {
                    let value = channel < 0 ? 1 : dog.data[(channel * 576 + y) * 768 + x]
                    bgraBytes[y * rowBytes + x * 4 + offset] = UInt8((value * 255).rounded())
                }
            }
        }

        // snippet: readme-memory
        let frame = try Image(pixels: bgraBytes, width: 768, height: 576, bytesPerRow: 768 * 4 + 64,
                              layout: .bgra)
        let bundled = try weightsData.withUnsafeBytes { bytes in
            try Detector(cfg: cfgText, weights: bytes, name: "yolov3-tiny",
                         options: DetectorOptions(execution: ExecutionOptions(threads: 2)))
        }
        let found = try bundled.detect(in: frame)
        // end snippet

        let fromFiles = try Detector(cfg: try TestData.cfg("yolov3-tiny"), weights: try TestData.path("yolov3-tiny.weights"))
        let expected = try fromFiles.detect(in: dog)
        XCTAssertEqual(expected.count, 5)
        XCTAssertEqual(found, expected)
    }
}
