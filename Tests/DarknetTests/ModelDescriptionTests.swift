@testable import Darknet
import TestSupport
import XCTest

final class ModelDescriptionTests: XCTestCase {
    static let head = "[net]\nbatch=64\nsubdivisions=16\nwidth=64\nheight=64\nchannels=3\nlearning_rate=0.001\n"

    func model(_ body: String, size: Int? = nil) throws -> ModelDescription {
        try ModelDescription(text: Self.head + body, file: "t.cfg", width: size, height: size)
    }

    func error(_ body: String, size: Int? = nil, file: StaticString = #filePath, line: UInt = #line) -> CfgError? {
        do {
            _ = try model(body, size: size)
            XCTFail("expected an error", file: file, line: line)
            return nil
        } catch let error as CfgError {
            return error
        } catch {
            XCTFail("unexpected \(error)", file: file, line: line)
            return nil
        }
    }

    func testTrainingKeysIgnoredWithoutWarnings() throws {
        let m = try model("[convolutional]\nfilters=8\nsize=3\npad=1\nactivation=leaky\n")
        XCTAssertEqual(m.warnings, [])
        XCTAssertEqual(m.layers[0].output, TensorShape(channels: 8, height: 64, width: 64))
    }

    func testSizeOverride() throws {
        let m = try model("[convolutional]\nfilters=8\nsize=3\nstride=2\npad=1\n", size: 128)
        XCTAssertEqual(m.net.width, 128)
        XCTAssertEqual(m.layers[0].output, TensorShape(channels: 8, height: 64, width: 64))
    }

    func testUnknownKeyIsAWarningWithItsLine() throws {
        let m = try model("[convolutional]\nfilters=8\nfrobnicate=1\n")
        XCTAssertEqual(m.warnings.count, 1)
        XCTAssertEqual(m.warnings[0].location, CfgLocation(file: "t.cfg", line: 10, section: "convolutional", key: "frobnicate"))
        XCTAssertTrue(m.warnings[0].description.contains("t.cfg:10"))
    }

    func testUnknownSection() {
        XCTAssertEqual(error("[convolutional]\nfilters=8\n[lstm]\noutput=3\n"),
                       .unknownSection(CfgLocation(file: "t.cfg", line: 10, section: "lstm"), name: "lstm"))
    }

    func testNetMustComeFirstAndLayersMustFollow() {
        XCTAssertThrowsError(try ModelDescription(text: "[convolutional]\nfilters=3\n", file: "n.cfg")) {
            XCTAssertEqual($0 as? CfgError, .missingNetSection(file: "n.cfg"))
        }
        XCTAssertThrowsError(try ModelDescription(text: Self.head, file: "n.cfg")) {
            XCTAssertEqual($0 as? CfgError, .noLayers(file: "n.cfg"))
        }
        XCTAssertThrowsError(try ModelDescription(text: "", file: "n.cfg")) {
            XCTAssertEqual($0 as? CfgError, .empty(file: "n.cfg"))
        }
    }

    func testMissingInputSize() {
        XCTAssertThrowsError(try ModelDescription(text: "[net]\nchannels=3\n[maxpool]\n", file: "n.cfg")) { error in
            XCTAssertTrue(String(describing: error).contains("width"), "\(error)")
        }
    }

    func testBadNumberNamesLineAndKey() {
        XCTAssertEqual(error("[convolutional]\nfilters=eight\n"),
                       .badNumber(CfgLocation(file: "t.cfg", line: 9, section: "convolutional", key: "filters"),
                                  value: "eight", expected: "an integer"))
    }

    func testMissingRequiredKeys() {
        XCTAssertEqual(error("[convolutional]\nfilters=8\n[route]\n"),
                       .missingKey(CfgLocation(file: "t.cfg", line: 10, section: "route", key: "layers")))
        XCTAssertEqual(error("[convolutional]\nfilters=8\n[shortcut]\nactivation=linear\n"),
                       .missingKey(CfgLocation(file: "t.cfg", line: 10, section: "shortcut", key: "from")))
    }

    func testRouteIndexOutOfRange() {
        let e = error("[convolutional]\nfilters=8\n[route]\nlayers=-3\n")
        XCTAssertEqual(e, .layerReference(CfgLocation(file: "t.cfg", line: 11, section: "route", key: "layers"),
                                          layer: 1, index: -3, available: 1))
        XCTAssertTrue(String(describing: e!).contains("t.cfg:11"))
        XCTAssertEqual(error("[convolutional]\nfilters=8\n[route]\nlayers=1\n"),
                       .layerReference(CfgLocation(file: "t.cfg", line: 11, section: "route", key: "layers"), layer: 1, index: 1, available: 1),
                       "a route cannot name itself")
        XCTAssertEqual(error("[convolutional]\nfilters=8\n[shortcut]\nfrom=5\n"),
                       .layerReference(CfgLocation(file: "t.cfg", line: 11, section: "shortcut", key: "from"), layer: 1, index: 5, available: 1))
    }

    func testRouteShapeMismatch() {
        guard case .shapeMismatch(let location, let layer, _)? =
                error("[convolutional]\nfilters=8\n[maxpool]\nsize=2\nstride=2\n[route]\nlayers=-1,-2\n") else {
            return XCTFail("expected shapeMismatch")
        }
        XCTAssertEqual(location.line, 14)
        XCTAssertEqual(layer, 2)
    }

    func testYoloFiltersMismatchPointsAtTheConvolution() {
        let e = error("[convolutional]\nfilters=254\nsize=1\n[yolo]\nmask=0,1,2\nanchors=1,2,3,4,5,6\nclasses=80\nnum=3\n")
        XCTAssertEqual(e, .filtersMismatch(CfgLocation(file: "t.cfg", line: 8, section: "convolutional", key: "filters"),
                                           layer: 0, filters: 254, expected: 255))
        XCTAssertTrue(String(describing: e!).contains("255"))
    }

    func testYoloMaskOutsideAnchors() {
        guard case .invalidValue(let location, _, _)? =
                error("[convolutional]\nfilters=18\n[yolo]\nmask=0,5\nanchors=1,2,3,4\nclasses=4\nnum=2\n") else {
            return XCTFail("expected invalidValue")
        }
        XCTAssertEqual(location.key, "mask")
        XCTAssertEqual(location.line, 11)
    }

    func testInputTooSmallForStrides() {
        guard case .inputTooSmall(let location, let layer, _)? =
                error("[convolutional]\nfilters=8\nsize=7\nstride=1\n", size: 4) else {
            return XCTFail("expected inputTooSmall")
        }
        XCTAssertEqual(location.line, 8)
        XCTAssertEqual(layer, 0)
    }

    /// Each bad value is `invalidValue` naming its line, section, key and value (the head's
    /// [net] is lines 1-7, so the layer's section is line 8 and its first key line 9).
    func testInvalidValues() {
        func at(_ line: Int, _ section: String, _ key: String) -> CfgLocation {
            CfgLocation(file: "t.cfg", line: line, section: section, key: key)
        }
        XCTAssertEqual(error("[convolutional]\nfilters=0\n"),
                       .invalidValue(at(9, "convolutional", "filters"), value: "0", expected: "an integer ≥ 1"))
        XCTAssertEqual(error("[convolutional]\nfilters=8\nstride=0\n"),
                       .invalidValue(at(10, "convolutional", "stride"), value: "0", expected: "an integer ≥ 1"))
        XCTAssertEqual(error("[convolutional]\nfilters=8\ngroups=3\n"),
                       .invalidValue(at(10, "convolutional", "groups"), value: "3", expected: "a divisor of filters=8"))
        guard case .invalidValue(let location, let value, let expected)? = error("[convolutional]\nfilters=8\nactivation=sparkle\n") else {
            return XCTFail("activation=sparkle must be an invalid value")
        }
        XCTAssertEqual(location, at(10, "convolutional", "activation"))
        XCTAssertEqual(value, "sparkle")
        XCTAssertTrue(expected.hasPrefix("one of ") && expected.contains("leaky"), expected)
        XCTAssertEqual(error("[maxpool]\nsize=0\n"), .invalidValue(at(9, "maxpool", "size"), value: "0", expected: "an integer ≥ 1"))
        XCTAssertEqual(error("[upsample]\nstride=0\n"),
                       .invalidValue(at(9, "upsample", "stride"), value: "0", expected: "a non-zero integer"))
        // A size override is checked where the cfg sets the width: [net]'s line 4.
        XCTAssertEqual(error("[convolutional]\nfilters=8\n", size: 0),
                       .invalidValue(at(4, "net", "width"), value: "0", expected: "an input width in 1...16384"))
        XCTAssertEqual(error("[convolutional]\nfilters=8\n", size: 1_000_000),
                       .invalidValue(at(4, "net", "width"), value: "1000000", expected: "an input width in 1...16384"))
    }

    func testUnsupportedOptionsAreErrorsNotIgnored() {
        for body in ["[convolutional]\nfilters=8\nsize=3\ndilation=2\n", "[convolutional]\nfilters=8\nbinary=1\n",
                     "[convolutional]\nfilters=8\nantialiasing=1\n"] {
            guard case .unsupported? = error(body) else { return XCTFail("expected unsupported for \(body)") }
        }
    }

    func testNewCoordsIsZeroOrOne() throws {
        let parsed = try model("[convolutional]\nfilters=6\n[yolo]\nmask=0\nanchors=1,2\nclasses=1\nnum=1\nnew_coords=1\n")
        guard case .yolo(let yolo) = parsed.layers[1].kind else { return XCTFail("layer 1 is not [yolo]") }
        XCTAssertTrue(yolo.head.newCoords)
        guard case .invalidValue(let location, let value, _)? =
                error("[convolutional]\nfilters=6\n[yolo]\nmask=0\nanchors=1,2\nclasses=1\nnum=1\nnew_coords=2\n") else {
            return XCTFail("new_coords=2 must be an invalid value")
        }
        XCTAssertEqual(location.key, "new_coords")
        XCTAssertEqual(value, "2")
    }

    /// The real cfgs parse with darknet's shapes; totals equal darknet's BFLOPs.
    func testYolov3AndTinyShapesAndBflops() throws {
        let v3 = try ModelDescription(contentsOf: try TestData.cfg("yolov3"), width: 416, height: 416)
        XCTAssertEqual(v3.layers.count, 107)
        XCTAssertEqual(v3.layers[82].output, TensorShape(channels: 255, height: 13, width: 13))
        XCTAssertEqual(v3.layers[106].output, TensorShape(channels: 255, height: 52, width: 52))
        // darknet prints each layer's BFLOPs with %5.3f; its rows add up to 65.862 (yolov3 at 416) and 5.567 (tiny).
        XCTAssertEqual(v3.roundedBflops, 65.862, accuracy: 1e-9)
        XCTAssertEqual(v3.totalBflops, 65.86, accuracy: 0.005)
        XCTAssertEqual(v3.warnings, [])

        let tiny = try ModelDescription(contentsOf: try TestData.cfg("yolov3-tiny"))
        XCTAssertEqual(tiny.layers.count, 24)
        XCTAssertEqual(tiny.layers[11].output, TensorShape(channels: 512, height: 13, width: 13), "maxpool size 2 stride 1 keeps 13×13")
        XCTAssertEqual(tiny.roundedBflops, 5.567, accuracy: 1e-9)
        XCTAssertEqual(tiny.totalBflops, 5.565, accuracy: 0.0005)

        let spp = try ModelDescription(contentsOf: try TestData.cfg("yolov3-spp"), width: 416, height: 416)
        XCTAssertEqual(spp.layers.count, 114)
    }
}
