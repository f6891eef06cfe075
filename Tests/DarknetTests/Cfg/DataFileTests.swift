@testable import Darknet
import Foundation
import XCTest

/// `.data` files as darknet's `read_data_cfg` reads them, and what it would silently get wrong.
final class DataFileTests: XCTestCase {
    private func parse(_ text: String, file: String = "obj.data") throws -> DataFile {
        try DataFile(bytes: Array(text.utf8), file: file)
    }

    func testReadsKeysAsDarknetDoes() throws {
        // Spaces anywhere are removed (darknet's strip), CRLF ends, comments with # and ;.
        let data = try parse("classes= 2\r\ntrain  = data/train.txt\n# valid = old.txt\n;x=1\nvalid = data/my val.txt\n\nnames = data/obj.names\nbackup = backup/\neval=coco")
        XCTAssertEqual(data.classes, 2)
        XCTAssertEqual(data.value("train"), "data/train.txt")
        XCTAssertEqual(data.value("valid"), "data/myval.txt")
        XCTAssertEqual(data.path("names"), "data/obj.names")
        XCTAssertEqual(data.value("eval"), "coco")
        XCTAssertEqual(data.entry("names")?.line, 7)
        XCTAssertEqual(data.warnings, [])
    }

    func testWarnsWhereDarknetSkipsOrIgnores() throws {
        let data = try parse("classes=3\nnames=a.names\nnames=b.names\nvalid\nresults=\nweights=x.weights\n")
        XCTAssertEqual(data.value("names"), "a.names", "option_find uses the first")
        XCTAssertEqual(data.warnings.map(\.location.line), [3, 4, 5, 6])
        XCTAssertTrue(data.warnings[0].description.hasPrefix("obj.data:3 'names': warning: repeated key: darknet uses the first, at line 2"),
                      data.warnings[0].description)
        XCTAssertTrue(data.warnings[1].message.contains("expected key=value, found 'valid'"))
        XCTAssertTrue(data.warnings[2].message.contains("found 'results='"))
        XCTAssertTrue(data.warnings[3].message.hasPrefix("unknown key"))
        XCTAssertEqual(data.value("weights"), "x.weights", "an unknown key is kept for the caller to see")
    }

    func testBadValuesAreErrorsWithTheirLine() {
        XCTAssertThrowsError(try parse("names=x\nclasses=eighty\n")) { error in
            XCTAssertEqual("\(error)", "obj.data:2 'classes': 'eighty' is not a whole number of classes above 0")
        }
        XCTAssertThrowsError(try parse("classes=0\n")) { error in
            XCTAssertEqual("\(error)", "obj.data:1 'classes': '0' is not a whole number of classes above 0")
        }
        XCTAssertThrowsError(try parse("top=-5\n")) { error in
            XCTAssertEqual("\(error)", "obj.data:1 'top': '-5' is not a whole number above 0")
        }
        XCTAssertThrowsError(try DataFile(bytes: [0x63, 0x3d, 0x31, 0x00, 0x01], file: "w.weights")) { error in
            XCTAssertEqual("\(error)", "w.weights: not a .data file (a NUL byte at offset 3; expected key=value lines)")
        }
    }

    func testFileErrorsInTheProjectsWords() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("datafile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        XCTAssertThrowsError(try DataFile(contentsOf: folder.appendingPathComponent("none.data").path)) { error in
            XCTAssertEqual("\(error)", "\(folder.path)/none.data: cannot read the .data file: no such file")
        }
        XCTAssertThrowsError(try DataFile(contentsOf: folder.path)) { error in
            XCTAssertEqual("\(error)", "\(folder.path): cannot read the .data file: is a directory")
        }
        XCTAssertThrowsError(try DataFile(contentsOf: "/dev/zero", maximumBytes: 1000)) { error in
            XCTAssertEqual(error as? DataFileError, .tooLarge(file: "/dev/zero", bytes: 1001, limit: 1000))
        }
        let big = folder.appendingPathComponent("big.data")
        try Data(repeating: 0x20, count: 2000).write(to: big)
        XCTAssertThrowsError(try DataFile(contentsOf: big.path, maximumBytes: 1000)) { error in
            XCTAssertEqual(error as? DataFileError, .tooLarge(file: big.path, bytes: 2000, limit: 1000))
        }
    }

    /// darknet opens a `.data` file's paths relative to the current folder; when the file is
    /// there only relative to the `.data` file's folder, the error says so.
    func testPathsResolveFromTheCurrentFolderAndTheErrorPointsBesideTheDataFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("datafile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("data"), withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        try "a\nb\n".write(to: folder.appendingPathComponent("data/obj.names"), atomically: true, encoding: .utf8)
        let dataPath = folder.appendingPathComponent("obj.data").path
        try "classes=2\nnames=data/obj.names\n".write(toFile: dataPath, atomically: true, encoding: .utf8)
        let data = try DataFile(contentsOf: dataPath)
        let here = FileManager.default.currentDirectoryPath
        XCTAssertThrowsError(try data.existingPath("names", for: "detector test")) { error in
            XCTAssertEqual("\(error)", "\(dataPath):2 'names': data/obj.names: no such file (darknet opens it relative to the current folder, \(here)); there is one at \(folder.path)/data/obj.names: run from the .data file's folder, or write that path")
        }
        XCTAssertThrowsError(try data.existingPath("valid", for: "detector map")) { error in
            XCTAssertEqual("\(error)", "\(dataPath): no 'valid=' line, which detector map needs")
        }
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(folder.path))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(here) }
        XCTAssertEqual(try data.existingPath("names", for: "detector test"), "data/obj.names")
    }
}
