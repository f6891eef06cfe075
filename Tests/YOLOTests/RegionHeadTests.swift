import XCTest
import YOLO

final class RegionHeadTests: XCTestCase {
    func testValidationAndChannelCount() throws {
        // yolov2-voc: 5 anchors, 20 classes -> 5 x 25 = 125 channels.
        let voc = RegionHead(anchors: [1.3221, 1.73145, 3.19275, 4.00944, 5.05587, 8.09892, 9.47112, 4.84053, 11.2364, 10.0071], classes: 20)
        XCTAssertEqual(voc.anchorCount, 5)
        XCTAssertEqual(try DetectionHead.region(voc).validatedChannels(), 125)
        XCTAssertEqual(try DetectionHead.yolo(YOLOHead(anchors: [1, 2, 3, 4], mask: [1], classes: 80)).validatedChannels(), 85)
        XCTAssertThrowsError(try RegionHead(anchors: [1, 2], classes: 0).validate())
        XCTAssertThrowsError(try RegionHead(anchors: [1, 2, 3], classes: 2).validate())
        XCTAssertThrowsError(try DetectionHead.region(RegionHead(anchors: [1, 2], classes: .max)).validatedChannels()) {
            guard case .head(.shapeTooLarge) = $0 as? DecodeError else { return XCTFail("\($0)") }
        }
    }
}
