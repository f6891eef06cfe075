@testable import Darknet
import Foundation
import TestSupport
import XCTest

/// Names files (`--names`, `--labels`, `ClassNames.load`): darknet's one name per line, and a
/// typed error naming the file for anything that is not a names file.
final class ClassNamesTests: XCTestCase {
    func testLinesCRLFSpacesAndTrailingEmptyLines() throws {
        XCTAssertEqual(try ClassNames.parse(Data("person\r\n bicycle \ncar\n\n\n".utf8), file: "a.names"), ["person", "bicycle", "car"])
        // An empty line in the middle is a class without a name (darknet keeps it too).
        XCTAssertEqual(try ClassNames.parse(Data("a\n\nc".utf8), file: "a.names"), ["a", "", "c"])
        // Invalid UTF-8 is replaced, not trusted.
        XCTAssertEqual(try ClassNames.parse(Data([0x61, 0xFF, 0x0A, 0x62]), file: "a.names"), ["a\u{FFFD}", "b"])
    }

    func testErrorsNameTheFile() throws {
        XCTAssertThrowsError(try ClassNames.parse(Data("\n\n".utf8), file: "e.names")) { error in
            XCTAssertEqual(error as? ClassNames.Error, .empty(file: "e.names"))
        }
        XCTAssertThrowsError(try ClassNames.parse(Data([0x64, 0x6F, 0x67, 0x00, 0x01]), file: "w.weights")) { error in
            XCTAssertEqual(error as? ClassNames.Error, .binary(file: "w.weights", offset: 3))
        }
        XCTAssertThrowsError(try ClassNames.parse(Data("a\nb\nc\nd\ne\n".utf8), file: "big.names", maximumBytes: 8)) { error in
            XCTAssertEqual(error as? ClassNames.Error, .tooLarge(file: "big.names", bytes: 10, limit: 8))
        }
        let file = try TestData.temporaryFile(Data("a\nb\nc\nd\ne\n".utf8), name: "big.names", testCase: self)
        XCTAssertThrowsError(try ClassNames.load(contentsOf: file, maximumBytes: 8)) { error in
            XCTAssertEqual(error as? ClassNames.Error, .tooLarge(file: file, bytes: 10, limit: 8))
        }
        // In the project's words, not Foundation's ("The file … couldn't be opened …").
        XCTAssertThrowsError(try ClassNames.load(contentsOf: "/nonexistent/coco.names")) { error in
            XCTAssertEqual("\(error)", "/nonexistent/coco.names: cannot read class names: no such file")
        }
        XCTAssertThrowsError(try ClassNames.load(contentsOf: "/tmp")) { error in
            XCTAssertEqual("\(error)", "/tmp: cannot read class names: is a directory")
        }
        // A device is read only up to the limit.
        XCTAssertThrowsError(try ClassNames.load(contentsOf: "/dev/zero", maximumBytes: 64)) { error in
            XCTAssertEqual(error as? ClassNames.Error, .tooLarge(file: "/dev/zero", bytes: 65, limit: 64))
        }
    }

    func testCocoNames() throws {
        let names = try ClassNames.load(contentsOf: try TestData.path("data/coco.names"))
        XCTAssertEqual(names.count, 80)
        XCTAssertEqual([names[0], names[16], names[79]], ["person", "dog", "toothbrush"])
    }
}
