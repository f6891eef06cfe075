@testable import Darknet
import XCTest

/// `[region]` parsing (parse_region's defaults and the rejected options) and its forward
/// on a small case; the full networks are checked against libdarknet in RegionGoldenTests.
final class RegionTests: XCTestCase {
    func model(_ region: String, filters: Int = 14) throws -> ModelDescription {
        try ModelDescription(text: "[net]\nwidth=4\nheight=4\nchannels=3\n[convolutional]\nfilters=\(filters)\nsize=1\n[region]\n" + region)
    }

    func testParseDefaultsAndAnchors() throws {
        let parsed = try model("classes=2\nnum=2\nsoftmax=1\nanchors=1.5,2.5\n")
        guard case .region(let region) = parsed.layers[1].kind else { return XCTFail("not a region") }
        // make_region_layer's 0.5 for the pair the cfg does not list.
        XCTAssertEqual(region.head.anchors, [1.5, 2.5, 0.5, 0.5])
        XCTAssertTrue(region.head.softmax)
        XCTAssertEqual(parsed.layers[1].output, TensorShape(channels: 14, height: 4, width: 4))
    }

    func testErrorsNameTheKey() throws {
        for (body, key) in [("classes=2\nnum=2\ncoords=5\n", "coords"), ("classes=2\nnum=2\nbackground=1\n", "background")] {
            XCTAssertThrowsError(try model(body)) { error in
                guard case .unsupported(let location, _)? = error as? CfgError else { return XCTFail("\(body): \(error)") }
                XCTAssertEqual(location.key, key)
            }
        }
        // A class tree that is not there: the key's line and the paths tried (ClassTreeGoldenTests
        // has the rest); `map=` serves darknet's validation only and is not read.
        XCTAssertThrowsError(try model("classes=2\nnum=2\ntree=data/none.tree\n")) { error in
            guard case .dataFile(let location, _, let detail)? = error as? CfgError else { return XCTFail("\(error)") }
            XCTAssertEqual(location.key, "tree")
            XCTAssertTrue(detail.hasPrefix("not found (tried data/none.tree"), detail)
        }
        XCTAssertNoThrow(try model("classes=2\nnum=2\nmap=x.map\n"))
        XCTAssertThrowsError(try model("classes=2\nnum=3\n")) { error in
            guard case .filtersMismatch(let location, _, let filters, let expected)? = error as? CfgError else { return XCTFail("\(error)") }
            XCTAssertEqual(location.key, "filters")
            XCTAssertEqual([filters, expected], [14, 21])
        }
    }

    /// Logistic on x, y and objectness, w and h raw, and a softmax across the classes of each
    /// cell that sums to 1 (computed from the raw scores).
    func testForwardActivatesAndSoftmaxes() throws {
        let region = Region(head: .init(anchors: [1, 1], classes: 3, softmax: true))
        let shape = TensorShape(channels: 8, height: 1, width: 2)
        let input: [Float] = [0, 1, -1, 2, 0.5, 0.5, -0.5, 3, 1, 1, 0, 0, 2, -2, 3, 3]
        var output = [Float](repeating: 0, count: 16)
        region.forward(input: input, output: &output, shape: shape, threads: 1)
        func logistic(_ x: Float) -> Float { Activation.logistic.value(x) }
        XCTAssertEqual(Array(output[0..<4]), [logistic(0), logistic(1), logistic(-1), logistic(2)])
        XCTAssertEqual(Array(output[4..<8]), [0.5, 0.5, -0.5, 3])
        XCTAssertEqual(Array(output[8..<10]), [logistic(1), logistic(1)])
        for cell in 0..<2 {
            let scores = [output[10 + cell], output[12 + cell], output[14 + cell]]
            XCTAssertEqual(scores.reduce(0, +), 1, accuracy: 1e-6)
            let raw = [input[10 + cell], input[12 + cell], input[14 + cell]]
            let e = raw.map { exp(Double($0 - raw.max()!)) }
            for (s, x) in zip(scores, e) { XCTAssertEqual(Double(s), x / e.reduce(0, +), accuracy: 1e-6) }
        }
    }
}
