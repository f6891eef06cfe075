import Foundation
import TestSupport
import XCTest

/// `classify` takes its inputs as `detect` does (issue #31's frictions): folders, `--list`,
/// `--recursive`, jsonl and csv, and a bad image reported with its path while the run goes on.
final class ClassifyInputsTests: XCTestCase {
    func testFoldersListsAndFormats() throws {
        let folder = try CLI.temporaryFolder(self)
        let (cfg, weights) = try CLI.tinyClassifier(in: folder)
        let photos = folder.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos.appendingPathComponent("sub"), withIntermediateDirectories: true)
        let dog = try Data(contentsOf: URL(fileURLWithPath: try TestData.path("data/dog.jpg")))
        try dog.write(to: photos.appendingPathComponent("a.jpg"))
        try dog.write(to: photos.appendingPathComponent("sub/b.jpg"))
        try Data("hello".utf8).write(to: photos.appendingPathComponent("broken.jpg"))

        let flat = try CLI.run(["classify", cfg, weights, photos.path, "--format", "jsonl", "--top", "1"])
        XCTAssertEqual(flat.status, 1, flat.stderr)
        let objects = try CLI.objects(flat.stdout)
        XCTAssertEqual(objects.compactMap { $0["path"] as? String }, [photos.appendingPathComponent("a.jpg").path])
        XCTAssertEqual((objects.first?["classes"] as? [[String: Any]])?.first?["index"] as? Int, 0)
        let broken = photos.appendingPathComponent("broken.jpg").path
        XCTAssertTrue(flat.stderr.contains("darknet-swift: \(broken): "), flat.stderr)
        XCTAssertTrue(flat.stderr.contains("2 images: 1 done, 1 failed"), flat.stderr)

        let recursive = try CLI.run(["classify", cfg, weights, photos.path, "--recursive", "--format", "csv", "--top", "2", "--quiet"])
        XCTAssertEqual(recursive.status, 1)
        XCTAssertEqual(recursive.stderr.split(separator: "\n").count, 1, recursive.stderr)
        let a = photos.appendingPathComponent("a.jpg").path, b = photos.appendingPathComponent("sub/b.jpg").path
        let rows = recursive.stdout.components(separatedBy: "\r\n")
        XCTAssertEqual(rows.first, "path,width,height,rank,index,label,confidence")
        XCTAssertEqual(rows.last, "")
        let body = rows.dropFirst().dropLast().map { $0.split(separator: ",").map(String.init) }
        XCTAssertEqual(body.map { Array($0.prefix(6)) }, [[a, "768", "576", "1", "0", "0"], [a, "768", "576", "2", "1", "1"],
                                                          [b, "768", "576", "1", "0", "0"], [b, "768", "576", "2", "1", "1"]])
        let e = exp(1.0)
        for (row, expected) in zip(body, [e * e, e, e * e, e].map { $0 / (e * e + e + 1) }) {
            XCTAssertEqual(Double(row.last ?? "") ?? 0, expected, accuracy: 1e-6)
        }

        let list = folder.appendingPathComponent("list.txt")
        try "\(b)\n\(a)\n".write(to: list, atomically: true, encoding: .utf8)
        let listed = try CLI.run(["classify", cfg, weights, "--list", "-", "--top", "1"], stdin: list)
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertEqual(listed.stdout, "\(b):\n66.52%: 0\n\(a):\n66.52%: 0\n")
    }
}
