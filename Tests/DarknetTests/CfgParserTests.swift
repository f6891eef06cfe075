@testable import Darknet
import XCTest
import Foundation

final class CfgParserTests: XCTestCase {
    func testSectionsOptionsCommentsAndLines() throws {
        let text = "# comment\n[net]\n width = 416 \n;another\n\nheight=320\r\nchannels=3\r\n[convolutional]\nfilters=16\nsize=3"
        let sections = try CfgParser.parse(text: text, file: "a.cfg")
        XCTAssertEqual(sections.map(\.name), ["net", "convolutional"])
        XCTAssertEqual(sections[0].line, 2)
        XCTAssertEqual(sections[0].option("width")?.value, "416")
        XCTAssertEqual(sections[0].option("width")?.line, 3)
        XCTAssertEqual(sections[0].option("height")?.value, "320", "CRLF line ends are accepted")
        XCTAssertEqual(sections[1].option("size")?.value, "3", "a missing final newline is accepted")
        XCTAssertEqual(sections[1].option("size")?.line, 10)
    }

    func testSectionNamesAreCaseInsensitiveAndNetworkIsNet() throws {
        let model = try ModelDescription(text: "[Network]\nwidth=32\nheight=32\nchannels=3\n[CONVOLUTIONAL]\nfilters=4\n")
        XCTAssertEqual(model.layers.count, 1)
        XCTAssertEqual(model.layers[0].typeName, "convolutional")
    }

    func testFileErrorsInTheProjectsWords() {
        XCTAssertThrowsError(try CfgParser.parse(contentsOf: "/nonexistent/yolo.cfg")) { error in
            XCTAssertEqual("\(error)", "/nonexistent/yolo.cfg: cannot read cfg: no such file")
        }
        XCTAssertThrowsError(try CfgParser.parse(contentsOf: "/dev/zero", maximumBytes: 100)) { error in
            XCTAssertEqual(error as? CfgError, .tooLarge(file: "/dev/zero", bytes: 101, limit: 100))
        }
    }

    func testMalformedLineNamesFileAndLine() {
        XCTAssertThrowsError(try CfgParser.parse(text: "[net]\nwidth 416\n", file: "bad.cfg")) { error in
            XCTAssertEqual(error as? CfgError, .malformedLine(CfgLocation(file: "bad.cfg", line: 2), text: "width 416"))
            XCTAssertTrue(String(describing: error).contains("bad.cfg:2"))
        }
        XCTAssertThrowsError(try CfgParser.parse(text: "[net\n", file: "bad.cfg")) { error in
            XCTAssertEqual(error as? CfgError, .malformedLine(CfgLocation(file: "bad.cfg", line: 1), text: "[net"))
        }
        XCTAssertThrowsError(try CfgParser.parse(text: "=3\n", file: "bad.cfg")) { error in
            XCTAssertEqual(error as? CfgError, .malformedLine(CfgLocation(file: "bad.cfg", line: 1), text: "=3"))
        }
    }

    func testOptionBeforeSection() {
        XCTAssertThrowsError(try CfgParser.parse(text: "width=3\n[net]\n", file: "x.cfg")) { error in
            XCTAssertEqual(error as? CfgError, .optionOutsideSection(CfgLocation(file: "x.cfg", line: 1)))
        }
    }

    func testUnreadableAndTooLarge() {
        XCTAssertThrowsError(try CfgParser.parse(contentsOf: "/nonexistent/x.cfg")) { error in
            guard case .unreadable(let file, _)? = error as? CfgError else { return XCTFail("\(error)") }
            XCTAssertEqual(file, "/nonexistent/x.cfg")
        }
        let huge = String(repeating: "#", count: ModelLimits().maximumCfgBytes + 1)
        XCTAssertThrowsError(try CfgParser.parse(text: huge, file: "big.cfg")) { error in
            guard case .tooLarge(let file, _, _)? = error as? CfgError else { return XCTFail("\(error)") }
            XCTAssertEqual(file, "big.cfg")
        }
        XCTAssertThrowsError(try CfgParser.parse(text: "[net]\n", file: "small.cfg", maximumBytes: 5)) { error in
            XCTAssertEqual(error as? CfgError, .tooLarge(file: "small.cfg", bytes: 6, limit: 5))
        }
    }

    /// A regular file over the limit is refused by its size, unread: a sparse 1 TiB file
    /// answers at once (reading it would take an hour and a terabyte).
    func testHugeFileIsRefusedUnread() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("huge-\(UUID().uuidString).cfg").path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertEqual(truncate(path, 1 << 40), 0)
        XCTAssertThrowsError(try CfgParser.parse(contentsOf: path)) { error in
            XCTAssertEqual(error as? CfgError, .tooLarge(file: path, bytes: 1 << 40, limit: ModelLimits().maximumCfgBytes))
        }
    }

    func testTypedReads() throws {
        let section = try CfgParser.parse(text: "[yolo]\nmask=0, 1,2\nanchors=10,14,  23,27\nclasses=8x\nnum=1.0\nmax=x8\n", file: "y.cfg")[0]
        XCTAssertEqual(try section.intList("mask"), [0, 1, 2])
        XCTAssertEqual(try section.floatList("anchors"), [10, 14, 23, 27])
        XCTAssertEqual(try section.int("num", default: 0), 1, "darknet's atoi accepts an integral float")
        XCTAssertEqual(try section.int("absent", default: 7), 7)
        XCTAssertEqual(try section.int("classes", default: 0), 8, "atoi reads the number before the text")
        XCTAssertEqual(section.notes.all.map(\.description), ["y.cfg:4 [yolo] 'classes': warning: 'x' after 8 is ignored (darknet reads numbers with atoi/atof)"])
        XCTAssertThrowsError(try section.int("max", default: 0)) { error in
            XCTAssertEqual(error as? CfgError, .badNumber(CfgLocation(file: "y.cfg", line: 6, section: "yolo", key: "max"),
                                                         value: "x8", expected: "an integer"))
        }
    }
}
