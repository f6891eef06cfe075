import XCTest
import YOLO

final class CoreMLMetadataTests: XCTestCase {
    func parse(_ metadata: [String: String]) -> Result<CoreMLMetadata, MetadataError> {
        Result { () throws(MetadataError) -> CoreMLMetadata in try CoreMLMetadata(userDefined: metadata) }
    }

    func testTuriCreateStyleMetadata() throws {
        let metadata = try CoreMLMetadata(userDefined: [
            "classes": "person, bicycle,car ", "non_maximum_suppression_threshold": "0.45",
            "confidence_threshold": " 0.25", "type": "object_detector"])
        XCTAssertEqual(metadata.classLabels, ["person", "bicycle", "car"])
        XCTAssertEqual(metadata.iouThreshold, 0.45)
        XCTAssertEqual(metadata.confidenceThreshold, 0.25)
        XCTAssertNil(try CoreMLMetadata(userDefined: ["classes": "a", "non_maximum_suppression_threshold": "1"]).confidenceThreshold)
    }

    func testMalformedMetadataGivesTypedErrors() {
        let nms = "non_maximum_suppression_threshold"
        XCTAssertEqual(parse([nms: "0.5"]), .failure(.missingKey("classes")))
        XCTAssertEqual(parse(["classes": "a,b"]), .failure(.missingKey(nms)))
        XCTAssertEqual(parse(["classes": " ", nms: "0.5"]), .failure(.emptyClassList))
        XCTAssertEqual(parse(["classes": "a,,b", nms: "0.5"]), .failure(.emptyClassLabel(index: 1, value: "a,,b")))
        XCTAssertEqual(parse(["classes": "a,b,", nms: "0.5"]), .failure(.emptyClassLabel(index: 2, value: "a,b,")))
        XCTAssertEqual(parse(["classes": "a", nms: "half"]), .failure(.notANumber(key: nms, value: "half")))
        XCTAssertEqual(parse(["classes": "a", nms: "nan"]), .failure(.notANumber(key: nms, value: "nan")))
        XCTAssertEqual(parse(["classes": "a", nms: "1.5"]), .failure(.outOfRange(key: nms, value: 1.5)))
        XCTAssertEqual(parse(["classes": "a", nms: "0.5", "confidence_threshold": "-0.1"]),
                       .failure(.outOfRange(key: "confidence_threshold", value: -0.1)))
        XCTAssertTrue(MetadataError.missingKey("classes").description.contains("classes"))
    }
}
