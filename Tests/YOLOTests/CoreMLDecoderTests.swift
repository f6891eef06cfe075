import XCTest
import YOLO

/// Hand-worked Core ML / Turi Create outputs: 3 boxes, 2 classes.
final class CoreMLDecoderTests: XCTestCase {
    // Box 0: centre (0.5, 0.5), 0.4 x 0.2 -> corners (0.3, 0.4)-(0.7, 0.6), class 1 at 0.9.
    // Box 1: centre (0.52, 0.5), 0.4 x 0.2 -> overlaps box 0 (IoU 0.38 / 0.42 = 0.905), class 0 at 0.8.
    // Box 2: centre (0.1, 0.1), 0.1 x 0.1, best 0.2 (below a 0.25 threshold).
    let confidence: [Float] = [0.1, 0.9, 0.8, 0.2, 0.2, 0.1]
    let coordinates: [Float] = [0.5, 0.5, 0.4, 0.2, 0.52, 0.5, 0.4, 0.2, 0.1, 0.1, 0.1, 0.1]

    func testArgmaxThresholdAndGreedyNMSAcrossClasses() throws {
        let result = try CoreMLDecoder.decode(confidence: confidence, coordinates: coordinates, boxes: 3, classes: 2,
                                              confidenceThreshold: 0.25, iouThreshold: 0.5)
        XCTAssertEqual(result.map(\.classId), [1], "box 1 (another class) overlaps box 0 by 0.9 and goes")
        let box = try XCTUnwrap(result.first).box
        XCTAssertEqual(box, BoundingBox(x: 0.5, y: 0.5, width: 0.4, height: 0.2))
        // centre -> corners: 0.5 ∓ 0.2, 0.5 ∓ 0.1.
        XCTAssertEqual(box.left, 0.3, accuracy: 1e-7)
        XCTAssertEqual(box.top, 0.4, accuracy: 1e-7)
        XCTAssertEqual(box.right, 0.7, accuracy: 1e-7)
        XCTAssertEqual(box.bottom, 0.6, accuracy: 1e-7)
        // Vision rect (lower-left origin): origin (0.3, 1 − 0.6 = 0.4), size 0.4 x 0.2.
        let vision = box.visionRect
        XCTAssertEqual(vision.x, 0.3, accuracy: 1e-7)
        XCTAssertEqual(vision.y, 0.4, accuracy: 1e-7)
        XCTAssertEqual(vision.width, 0.4, accuracy: 1e-7)
        XCTAssertEqual(vision.height, 0.2, accuracy: 1e-7)
        // A looser IoU threshold keeps both; 0 confidence threshold adds box 2; max 2 keeps the top 2.
        XCTAssertEqual(try CoreMLDecoder.decode(confidence: confidence, coordinates: coordinates, boxes: 3, classes: 2,
                                                confidenceThreshold: 0.25, iouThreshold: 0.95).map(\.confidence), [0.9, 0.8])
        XCTAssertEqual(try CoreMLDecoder.decode(confidence: confidence, coordinates: coordinates, boxes: 3, classes: 2,
                                                confidenceThreshold: 0, iouThreshold: 0.95).map(\.confidence), [0.9, 0.8, 0.2])
        XCTAssertEqual(try CoreMLDecoder.decode(confidence: confidence, coordinates: coordinates, boxes: 3, classes: 2,
                                                confidenceThreshold: 0, iouThreshold: 0.95, maxDetections: 2).map(\.confidence), [0.9, 0.8])
    }

    func testDoubleInputAndNormalizedConfidence() throws {
        let viaDouble = try CoreMLDecoder.decode(confidence: confidence.map(Double.init), coordinates: coordinates.map(Double.init),
                                                 boxes: 3, classes: 2, confidenceThreshold: 0.25, iouThreshold: 0.5)
        XCTAssertEqual(viaDouble.map(\.classId), [1])
        // softmax([0.1, 0.9]) = [1/(1 + e^0.8), e^0.8/(1 + e^0.8)] = [0.31003, 0.68997].
        let normalized = try CoreMLDecoder.decode(confidence: confidence, coordinates: coordinates, boxes: 3, classes: 2,
                                                  confidenceThreshold: 0.25, iouThreshold: 0.5, normalizedConfidence: true)
        XCTAssertEqual(try XCTUnwrap(normalized.first).confidence, 0.68997, accuracy: 1e-5)
    }

    func testMetadataDrivenDecode() throws {
        let metadata = try CoreMLMetadata(userDefined: ["classes": "cat,dog", "non_maximum_suppression_threshold": "0.95",
                                                        "confidence_threshold": "0.5"])
        let result = try CoreMLDecoder.decode(confidence: confidence, coordinates: coordinates, boxes: 3, metadata: metadata)
        XCTAssertEqual(result.map { metadata.classLabels[$0.classId] }, ["dog", "cat"])
        let three = CoreMLMetadata(classLabels: ["a", "b", "c"], iouThreshold: 0.5)
        XCTAssertThrowsError(try CoreMLDecoder.decode(confidence: confidence, coordinates: coordinates, boxes: 3, metadata: three)) {
            XCTAssertEqual($0 as? DecodeError, .labelCountMismatch(labels: 3, classes: 2))
        }
    }

    func testShapeErrors() {
        XCTAssertThrowsError(try CoreMLDecoder.decode(confidence: confidence, coordinates: Array(coordinates.dropLast()), boxes: 3,
                                                      classes: 2, confidenceThreshold: 0, iouThreshold: 0.5)) {
            XCTAssertEqual($0 as? DecodeError, .coreMLShapeMismatch(confidenceCount: 6, coordinatesCount: 11, boxes: 3, classes: 2))
        }
        XCTAssertThrowsError(try CoreMLDecoder.decode(confidence: confidence, coordinates: coordinates, boxes: .max,
                                                      classes: 2, confidenceThreshold: 0, iouThreshold: 0.5))
        XCTAssertThrowsError(try CoreMLDecoder.decode(confidence: confidence, coordinates: coordinates, boxes: 3,
                                                      classes: 2, confidenceThreshold: 0, iouThreshold: 0.5, maxDetections: -1)) {
            XCTAssertEqual($0 as? DecodeError, .negativeCount(-1))
        }
        XCTAssertEqual(try CoreMLDecoder.decode(confidence: [Float](), coordinates: [], boxes: 0, classes: 2,
                                                confidenceThreshold: 0, iouThreshold: 0.5), [])
    }

    func testSoftmax() {
        XCTAssertEqual(softmax([]), [])
        XCTAssertEqual(softmax([0, 0]), [0.5, 0.5])
        // Large values do not overflow: the max is subtracted first.
        XCTAssertEqual(softmax([1000, 1000 + 1.0986123]).map { ($0 * 1e5).rounded() / 1e5 }, [0.25, 0.75])
    }
}
