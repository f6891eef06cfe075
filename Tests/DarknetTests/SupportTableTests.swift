@testable import Darknet
import Foundation
import XCTest

/// The support table is derived from the layer files' key lists; these tests keep it honest
/// (reasoning, not an oracle: a rejected key must fail the parse with its own location) and
/// keep the committed copy (`Sources/Darknet/Darknet.docc/SupportedSections.md`, which
/// docs/supported.md mirrors) from drifting: `UPDATE_SNAPSHOTS=1 swift test --filter SupportTableTests`.
final class SupportTableTests: XCTestCase {
    /// Minimal valid body of each section after `[net]` 8×8×4 and a 6-filter 1×1 convolution
    /// (so `[yolo] classes=1 num=1`, `[route] layers=-1`, `[shortcut] from=-1` are valid).
    private let bodies: [String: String] = [
        "convolutional": "filters=4\nsize=1\n", "maxpool": "size=2\n", "upsample": "", "route": "layers=-1\n",
        "shortcut": "from=-1\n", "yolo": "classes=1\nnum=1\n", "avgpool": "", "connected": "output=2\n",
        "softmax": "", "dropout": "", "batchnorm": "", "cost": "", "sam": "from=-1\n", "scale_channels": "from=-2\n",
        "reorg": "stride=1\n", "region": "classes=1\nnum=1\n", "crop": "crop_height=4\ncrop_width=4\n",
        "local": "filters=2\nsize=3\npad=1\n", "gaussian_yolo": "classes=1\nnum=1\n", "reorg3d": "stride=2\n",
        "local_avgpool": "size=2\nstride=2\n", "contrastive": "yolo_layer=-1\n", "empty": "", "activation": "activation=leaky\n",
        "implicit": "filters=4\n", "crnn": "output=4\nhidden=3\nsize=3\npad=1\n", "detection": "side=4\nnum=1\nclasses=19\ncoords=4\n",
    ]
    /// Sections a section needs right before it ([scale_channels] scales by a C×1×1 layer).
    private let preludes: [String: String] = ["scale_channels": "[avgpool]\n", "gaussian_yolo": "[convolutional]\nfilters=10\nsize=1\n",
                                              "contrastive": "[yolo]\nclasses=1\nnum=1\n"]

    private func cfg(_ section: String, _ extra: String) -> String {
        "[net]\nwidth=8\nheight=8\nchannels=4\n[convolutional]\nfilters=6\nsize=1\n\(preludes[section] ?? "")[\(section)]\n\(bodies[section] ?? "")\(extra)"
    }

    func testEverySectionParsesWithItsMinimalBody() throws {
        for section in SupportTable.sections where section.names[0] != "net" {
            XCTAssertNotNil(bodies[section.names[0]], "add a body for [\(section.names[0])]")
            for name in section.names {
                XCTAssertNoThrow(try ModelDescription(text: cfg(name, "")), name)
            }
        }
    }

    /// Every "error unless default" key, set to its rejecting value, stops the parse with an
    /// error that names the key and the line it is on (line 11: after the 10 lines before it).
    func testRejectedKeysAreTypedErrorsWithTheirLine() {
        for section in SupportTable.sections where section.names[0] != "net" {
            XCTAssertTrue(section.rejectingValues.isEmpty || preludes[section.names[0]] == nil, "line arithmetic assumes no prelude")
            let bodyLines = (bodies[section.names[0]] ?? "").filter { $0 == "\n" }.count
            for (key, value) in section.rejectingValues {
                XCTAssertThrowsError(try ModelDescription(text: cfg(section.names[0], "\(key)=\(value)\n"))) { error in
                    guard let error = error as? CfgError, let location = error.location else { return XCTFail("\(key): \(error)") }
                    switch error {
                    case .unsupported, .invalidValue: break
                    default: XCTFail("[\(section.names[0])] \(key): \(error)")
                    }
                    XCTAssertEqual(location.key, key, "[\(section.names[0])] \(key)")
                    XCTAssertEqual(location.line, 9 + bodyLines, "[\(section.names[0])] \(key)")
                }
            }
        }
    }

    /// Every known key is in the table (they come from the same sets) and no key is listed twice.
    func testKeysAreTheLayerFilesKeys() {
        let convolutional = SupportTable.sections.first { $0.names.contains("convolutional") }
        XCTAssertEqual(Set(convolutional?.keys.map(\.key) ?? []), Convolutional.keys)
        for section in SupportTable.sections {
            let keys = section.keys.map(\.key)
            XCTAssertEqual(Set(keys).count, keys.count, section.names[0])
            XCTAssertTrue(Set(section.rejectingValues.keys).isSubset(of: Set(keys)), section.names[0])
        }
    }

    func testUnsupportedSectionsAreErrors() {
        for name in SupportTable.unsupportedSections {
            XCTAssertThrowsError(try ModelDescription(text: cfg(name, ""))) { error in
                guard case CfgError.unknownSection(let location, name) = error else { return XCTFail("\(name): \(error)") }
                XCTAssertEqual(location.line, 8, name)
            }
        }
    }

    func testCommittedTableMatchesTheCode() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let url = root.appendingPathComponent("Sources/Darknet/Darknet.docc/SupportedSections.md")
        let header = "# Supported sections and options\n\nGenerated from `SupportTable` (run `UPDATE_SNAPSHOTS=1 swift test --filter SupportTableTests` after changing a layer's keys).\n\n"
        let expected = header + SupportTable.markdown()
        if ProcessInfo.processInfo.environment["UPDATE_SNAPSHOTS"] == "1" {
            try expected.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        XCTAssertEqual(try String(contentsOf: url, encoding: .utf8), expected,
                       "the support table changed: review and run with UPDATE_SNAPSHOTS=1")
    }

    /// docs/supported.md shows the same table between two marker comments.
    func testDocsTableMatchesTheCode() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let url = root.appendingPathComponent("docs/supported.md")
        let readme = try String(contentsOf: url, encoding: .utf8)
        let begin = "<!-- support table: generated by SupportTableTests -->\n"
        let end = "<!-- end of support table -->"
        guard let start = readme.range(of: begin), let stop = readme.range(of: end, range: start.upperBound..<readme.endIndex) else {
            return XCTFail("docs/supported.md lacks the support table markers")
        }
        let table = SupportTable.markdown()
        if ProcessInfo.processInfo.environment["UPDATE_SNAPSHOTS"] == "1" {
            try readme.replacingCharacters(in: start.upperBound..<stop.lowerBound, with: table + "\n")
                .write(to: url, atomically: true, encoding: .utf8)
            return
        }
        XCTAssertEqual(String(readme[start.upperBound..<stop.lowerBound]), table + "\n",
                       "docs/supported.md's support table differs from the code: run with UPDATE_SNAPSHOTS=1")
    }
}
