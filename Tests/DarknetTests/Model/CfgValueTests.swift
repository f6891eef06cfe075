@testable import Darknet
import XCTest

/// Values read as darknet reads them: `atoi`/`atof` (a number followed by text keeps the number,
/// with a warning naming the line), the first of a repeated key.
final class CfgValueTests: XCTestCase {
    private func model(_ text: String) throws -> ModelDescription { try ModelDescription(text: text, file: "v.cfg") }

    func testTextAfterANumberIsIgnoredWithAWarning() throws {
        // AlexeyAB's cspx-p7-mish.cfg writes `layers = 180###P6`; efficientnet-lite3 `filters=40#32`.
        let model = try model("[net]\nwidth=8\nheight=8\nchannels=3\n[convolutional]\nfilters=40#32\nsize=1\n"
                              + "[convolutional]\nfilters=4\nsize=1\n[route]\nlayers = -2, -1 ###S4\n")
        guard case .convolutional(let conv) = model.layers[0].kind, case .route(let route) = model.layers[2].kind else {
            return XCTFail()
        }
        XCTAssertEqual(conv.filters, 40)
        XCTAssertEqual(route.sources, [0, 1])
        XCTAssertEqual(model.warnings.map(\.description), [
            "v.cfg:6 [convolutional] 'filters': warning: '#32' after 40 is ignored (darknet reads numbers with atoi/atof)",
            "v.cfg:12 [route] 'layers': warning: '###S4' after -1 is ignored (darknet reads numbers with atoi/atof)",
        ])
        let anchors = try self.model("[net]\nwidth=1\nheight=1\nchannels=6\n[yolo]\nclasses=1\nnum=1\nanchors=10,14#note\n")
        guard case .yolo(let yolo) = anchors.layers[0].kind else { return XCTFail() }
        XCTAssertEqual(yolo.head.anchors, [10, 14])
        XCTAssertEqual(anchors.warnings.map(\.location.line), [8])
    }

    /// A value that is not a number, or a fraction where darknet reads an integer, stays an error.
    func testNotANumberStaysAnError() {
        for (value, line) in [("leaky", 6), ("1.5", 6), ("#3", 6), ("", 6)] {
            XCTAssertThrowsError(try model("[net]\nwidth=8\nheight=8\nchannels=3\n[convolutional]\nfilters=\(value)\nsize=1\n"), value) { error in
                guard case CfgError.badNumber(let location, let got, let expected) = error else { return XCTFail("\(value): \(error)") }
                XCTAssertEqual(location.line, line)
                XCTAssertEqual(location.key, "filters")
                XCTAssertEqual(got, value)
                XCTAssertEqual(expected, "an integer")
            }
        }
    }

    /// darknet's option_find returns the first match: a repeated key keeps its first value, and
    /// a different later value is a warning on its line.
    func testTheFirstOfARepeatedKeyWins() throws {
        let model = try model("[net]\nwidth=8\nheight=8\nchannels=3\n[convolutional]\nfilters=4\nfilters=6\nfilters=4\nsize=1\n")
        guard case .convolutional(let conv) = model.layers[0].kind else { return XCTFail() }
        XCTAssertEqual(conv.filters, 4)
        XCTAssertEqual(model.warnings.map(\.description), [
            "v.cfg:7 [convolutional] 'filters': warning: 'filters' is set again; darknet uses the first value, '4' (line 6)",
        ])
    }

    /// AlexeyAB's cspx-p7-mish writes `num=16` with a mask up to 19 and 20 anchor pairs; his
    /// darknet reads past its 16-pair array there. The listed pairs are used, with a warning.
    func testMaskPastNumUsesTheListedAnchors() throws {
        let model = try model("[net]\nwidth=1\nheight=1\nchannels=12\n[yolo]\nclasses=1\nnum=2\nmask=1,2\nanchors=1,2, 3,4, 5,6\n")
        guard case .yolo(let yolo) = model.layers[0].kind else { return XCTFail() }
        XCTAssertEqual(yolo.head.anchors, [1, 2, 3, 4, 5, 6])
        XCTAssertEqual(model.warnings.map(\.location.line), [8])
        XCTAssertThrowsError(try self.model("[net]\nwidth=1\nheight=1\nchannels=12\n[yolo]\nclasses=1\nnum=2\nmask=1,2\nanchors=1,2, 3,4\n"),
                             "without the anchors listed it stays an error") { error in
            guard case CfgError.invalidValue(let location, _, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(location.key, "mask")
        }
    }

    /// darknet's char-RNN cfgs (`[net] inputs=256`, no width or height) are said to be text models.
    func testARecurrentTextModelIsNamedAsSuch() {
        XCTAssertThrowsError(try model("[net]\nsubdivisions=1\ninputs=256\nbatch=1\n[rnn]\noutput=1024\n")) { error in
            guard case CfgError.unsupported(let location, let what) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(location.line, 3)
            XCTAssertEqual(location.key, "inputs")
            XCTAssertTrue(what.contains("recurrent text models"), what)
        }
    }

    func testSiluIsSwishAndRevleakyIsLeaky() throws {
        let model = try model("[net]\nwidth=8\nheight=8\nchannels=3\n[convolutional]\nfilters=4\nsize=1\nactivation=silu\n"
                              + "[convolutional]\nfilters=4\nsize=1\nactivation=revleaky\n")
        guard case .convolutional(let a) = model.layers[0].kind, case .convolutional(let b) = model.layers[1].kind else { return XCTFail() }
        XCTAssertEqual(a.activation, .swish)
        XCTAssertEqual(b.activation, .leaky)
    }
}
