import TestSupport
import XCTest
@testable import YOLO

/// Compares the module with darknet itself. The expected numbers in DarknetOracleData.swift were
/// produced by Debian's libdarknet.so through `python3 tools/oracle/yolo_oracle.py`.
/// Comparisons are exact (Float ==) with one exception: Debian builds darknet with -Ofast, and
/// its correct_yolo_boxes computes the `(float)netw/new_w` and `(float)neth/new_h` factors with
/// `rcpps` plus one Newton step (see `objdump -d libdarknet.so`), an approximation whose last bit
/// depends on the CPU model. The module follows the C source (an IEEE division), so box width
/// and height after correct_yolo_boxes may differ from that binary by a few units in the last
/// place; x and y (double arithmetic in darknet) must still match exactly.
final class DarknetOracleTests: XCTestCase {
    /// Exact x, y; width and height within `sizeULPs` units in the last place.
    func assertBox(_ mine: BoundingBox, _ darknet: BoundingBox, sizeULPs: UInt32 = 4, _ message: String,
                   file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(mine.x, darknet.x, message, file: file, line: line)
        XCTAssertEqual(mine.y, darknet.y, message, file: file, line: line)
        XCTAssertLessThanOrEqual(Tolerance.ulps(mine.width, darknet.width), sizeULPs, "width \(mine.width) vs \(darknet.width): " + message, file: file, line: line)
        XCTAssertLessThanOrEqual(Tolerance.ulps(mine.height, darknet.height), sizeULPs, "height \(mine.height) vs \(darknet.height): " + message, file: file, line: line)
    }

    func box(_ row: [Float], at offset: Int = 0) -> BoundingBox {
        BoundingBox(x: row[offset], y: row[offset + 1], width: row[offset + 2], height: row[offset + 3])
    }

    func testBoxIoUMatchesDarknet() {
        for row in DarknetOracleData.iou {
            let a = box(row), b = box(row, at: 4)
            XCTAssertEqual(darknetIoU(a, b), row[8], "\(row)")
            XCTAssertEqual(a.iou(b), row[8], "\(row)")
        }
    }

    /// Input rows [x, y, w, h, objectness, p...] -> candidates; darknet's output rows
    /// [input index, objectness, p...] in its final order.
    func check(_ cases: [(classes: Int, iouThreshold: Float, input: [[Float]], output: [[Float]])],
               _ nms: ([Candidate], Float) -> [Candidate], file: StaticString = #filePath, line: UInt = #line) {
        for (caseIndex, test) in cases.enumerated() {
            let candidates = test.input.map {
                Candidate(box: box($0), objectness: $0[4], probabilities: Array($0[5...]))
            }
            let result = nms(candidates, test.iouThreshold)
            XCTAssertEqual(result.count, test.output.count, "case \(caseIndex)", file: file, line: line)
            for (position, (mine, darknet)) in zip(result, test.output).enumerated() {
                let source = Int(darknet[0])
                XCTAssertEqual(mine.box, candidates[source].box, "case \(caseIndex) position \(position): order differs", file: file, line: line)
                XCTAssertEqual(mine.objectness, darknet[1], "case \(caseIndex) position \(position)", file: file, line: line)
                XCTAssertEqual(mine.probabilities, Array(darknet[2...]), "case \(caseIndex) position \(position)", file: file, line: line)
            }
        }
    }

    func testPerClassMatchesDoNmsSortIncludingOrder() {
        check(DarknetOracleData.nmsSort) { NMS.perClass($0, iouThreshold: $1) }
    }

    func testByObjectnessMatchesDoNmsObjIncludingOrder() {
        check(DarknetOracleData.nmsObj) { NMS.byObjectness($0, iouThreshold: $1) }
    }

    func testCorrectBoxesMatchesCorrectYoloBoxes() {
        for test in DarknetOracleData.correctBoxes {
            var candidates = test.rows.map { Candidate(box: box($0), objectness: 1, probabilities: []) }
            correctBoxes(&candidates, imageWidth: test.imageWidth, imageHeight: test.imageHeight,
                         networkWidth: test.networkWidth, networkHeight: test.networkHeight, mapping: .letterbox)
            for (candidate, row) in zip(candidates, test.rows) {
                assertBox(candidate.box, box(row, at: 4), "image \(test.imageWidth)x\(test.imageHeight)")
            }
        }
    }

    func testApplyLogisticMatchesForwardYoloLayer() throws {
        let grid = DarknetOracleData.yoloGrid
        let head = YOLOHead(anchors: DarknetOracleData.yoloAnchors, mask: DarknetOracleData.yoloMask,
                            classes: DarknetOracleData.yoloClasses)
        var output = DarknetOracleData.yoloRaw
        try output.withUnsafeMutableBufferPointer {
            try YOLODecoder.applyLogistic($0, gridWidth: grid.width, gridHeight: grid.height, head: head)
        }
        XCTAssertEqual(output, DarknetOracleData.yoloActivated)
    }

    func testDecodeAndCorrectMatchGetNetworkBoxes() throws {
        let grid = DarknetOracleData.yoloGrid
        let head = YOLOHead(anchors: DarknetOracleData.yoloAnchors, mask: DarknetOracleData.yoloMask,
                            classes: DarknetOracleData.yoloClasses)
        for test in DarknetOracleData.yoloDetections {
            var candidates = try YOLODecoder.decode(
                DarknetOracleData.yoloActivated, gridWidth: grid.width, gridHeight: grid.height, head: head,
                networkWidth: grid.networkWidth, networkHeight: grid.networkHeight, threshold: DarknetOracleData.yoloThreshold)
            correctBoxes(&candidates, imageWidth: test.imageWidth, imageHeight: test.imageHeight,
                         networkWidth: grid.networkWidth, networkHeight: grid.networkHeight, mapping: .letterbox)
            XCTAssertEqual(candidates.count, test.rows.count, "image \(test.imageWidth)x\(test.imageHeight)")
            for (candidate, row) in zip(candidates, test.rows) {
                assertBox(candidate.box, box(row), "image \(test.imageWidth)x\(test.imageHeight)")
                XCTAssertEqual(candidate.objectness, row[4])
                XCTAssertEqual(candidate.probabilities, Array(row[5...]))
            }
        }
    }

    /// The strided API on darknet's [yolo] layer: post-activation NCHW equals the darknet entry
    /// point; raw logits (darknet's layer INPUT) give darknet's get_network_boxes too.
    func testStridedDecodeOfRawAndActivatedMatchesGetNetworkBoxes() throws {
        let grid = DarknetOracleData.yoloGrid
        let head = YOLOHead(anchors: DarknetOracleData.yoloAnchors, mask: DarknetOracleData.yoloMask,
                            classes: DarknetOracleData.yoloClasses)
        let tensor = TensorDescriptor.nchw(channels: head.mask.count * head.entriesPerAnchor, height: grid.height, width: grid.width)
        for (values, raw) in [(DarknetOracleData.yoloActivated, false), (DarknetOracleData.yoloRaw, true)] {
            for test in DarknetOracleData.yoloDetections {
                var candidates = try YOLODecoder.decode(
                    values, tensor: tensor, head: .yolo(head), networkWidth: grid.networkWidth, networkHeight: grid.networkHeight,
                    threshold: DarknetOracleData.yoloThreshold, options: DecodeOptions(rawLogits: raw))
                correctBoxes(&candidates, imageWidth: test.imageWidth, imageHeight: test.imageHeight,
                             networkWidth: grid.networkWidth, networkHeight: grid.networkHeight, mapping: .letterbox)
                XCTAssertEqual(candidates.count, test.rows.count, "raw \(raw)")
                for (candidate, row) in zip(candidates, test.rows) {
                    assertBox(candidate.box, box(row), "raw \(raw) image \(test.imageWidth)x\(test.imageHeight)")
                    XCTAssertEqual(candidate.objectness, row[4])
                    XCTAssertEqual(candidate.probabilities, Array(row[5...]))
                }
            }
        }
    }

    /// darknet's [region] layer (YOLOv2): forward_region_layer + get_region_detections +
    /// correct_region_boxes, from the raw layer input and from darknet's activated output.
    /// darknet returns every slot, objectness 0 below the threshold; we return only the others,
    /// in the same (anchor-major) order. Boxes: x, y exact, w, h within 4 ulps (double exp,
    /// then the -Ofast reciprocal in correct_region_boxes, see LetterboxGeometry.correct).
    /// Probabilities: exact from darknet's activated output; from raw logits within 2 ulps,
    /// because our softmax follows blas.c's C source (sequential Float sum), while -Ofast may
    /// reassociate that sum.
    func testRegionDecodeMatchesGetRegionDetections() throws {
        let grid = DarknetOracleData.yoloGrid
        let head = RegionHead(anchors: DarknetOracleData.regionAnchors, classes: DarknetOracleData.yoloClasses)
        let tensor = TensorDescriptor.nchw(channels: 2 * 8, height: grid.height, width: grid.width)
        for (values, raw) in [(DarknetOracleData.regionActivated, false), (DarknetOracleData.regionRaw, true)] {
            for test in DarknetOracleData.regionDetections {
                var candidates = try YOLODecoder.decode(
                    values, tensor: tensor, head: .region(head), networkWidth: grid.networkWidth, networkHeight: grid.networkHeight,
                    threshold: DarknetOracleData.regionThreshold, options: DecodeOptions(rawLogits: raw))
                correctBoxes(&candidates, imageWidth: test.imageWidth, imageHeight: test.imageHeight,
                             networkWidth: grid.networkWidth, networkHeight: grid.networkHeight, mapping: .letterbox)
                let rows = test.rows.filter { $0[4] != 0 }
                XCTAssertGreaterThan(rows.count, 3)
                XCTAssertLessThan(rows.count, test.rows.count, "some slots are below the threshold")
                XCTAssertEqual(candidates.count, rows.count, "raw \(raw)")
                for (candidate, row) in zip(candidates, rows) {
                    assertBox(candidate.box, box(row), "raw \(raw) image \(test.imageWidth)x\(test.imageHeight)")
                    XCTAssertEqual(candidate.objectness, row[4])
                    for (mine, darknet) in zip(candidate.probabilities, row[5...]) {
                        if raw {
                            XCTAssertLessThanOrEqual(Tolerance.ulps(mine, darknet), 2, "\(mine) vs \(darknet)")
                            XCTAssertEqual(mine == 0, darknet == 0)
                        } else {
                            XCTAssertEqual(mine, darknet)
                        }
                    }
                }
            }
        }
    }
}
