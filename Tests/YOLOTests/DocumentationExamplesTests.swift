import XCTest
import YOLO

/// Every code sample of Sources/YOLO/YOLO.docc, compiled and checked (keep them in step).
final class DocumentationExamplesTests: XCTestCase {
    /// YOLO.md: decode one [yolo] head of an NCHW Float tensor.
    func testLandingPageSample() throws {
        // A 255 x 13 x 13 output with one confident slot: anchor slot 0 of cell (row 6, col 6),
        // objectness 0.9, class 16 at 1; everything else 0.
        var output = [Float](repeating: 0, count: 255 * 169)
        let cell = 6 * 13 + 6
        for (entry, value) in [Float(0.5), 0.5, 0, 0, 0.9].enumerated() { output[entry * 169 + cell] = value }
        output[(5 + 16) * 169 + cell] = 1

        let head = YOLOHead(anchors: [10, 14, 23, 27, 37, 58, 81, 82, 135, 169, 344, 319],
                            mask: [3, 4, 5], classes: 80)
        let candidates = try YOLODecoder.decode(
            output, tensor: .nchw(channels: 255, height: 13, width: 13), head: .yolo(head),
            networkWidth: 416, networkHeight: 416, threshold: 0.5)
        let found = NMS.detections(candidates, mode: .perClass, iouThreshold: 0.45, threshold: 0.5)

        // Anchor 3 = (81, 82): box centred, 81/416 x 82/416.
        XCTAssertEqual(found, [Detection(classId: 16, confidence: 0.9,
                                         box: BoundingBox(x: 0.5, y: 0.5, width: 81.0 / 416, height: 82.0 / 416))])
    }

    /// DecodeCoreMLOutputs.md.
    func testDecodeCoreMLOutputsArticle() throws {
        let metadata = try CoreMLMetadata(userDefined: [
            "classes": "cat,dog",
            "non_maximum_suppression_threshold": "0.45",
            "confidence_threshold": "0.25",
        ])
        XCTAssertEqual(metadata.classLabels, ["cat", "dog"])
        XCTAssertEqual(metadata.iouThreshold, 0.45)

        let confidence: [Float] = [0.1, 0.9,   0.8, 0.2]            // 2 boxes x 2 classes
        let coordinates: [Float] = [0.5, 0.5, 0.4, 0.2,  0.52, 0.5, 0.4, 0.2]
        let found = try CoreMLDecoder.decode(confidence: confidence, coordinates: coordinates,
                                             boxes: 2, metadata: metadata)
        XCTAssertEqual(found.map { metadata.classLabels[$0.classId] }, ["dog"])
        XCTAssertEqual(found.map(\.confidence), [0.9])

        let box = found[0].box
        let corners = box.corners
        XCTAssertEqual(corners.left, 0.3, accuracy: 1e-7)
        XCTAssertEqual(corners.top, 0.4, accuracy: 1e-7)
        XCTAssertEqual(corners.right, 0.7, accuracy: 1e-7)
        XCTAssertEqual(corners.bottom, 0.6, accuracy: 1e-7)
        let vision = box.visionRect
        XCTAssertEqual(vision.x, 0.3, accuracy: 1e-7)
        XCTAssertEqual(vision.y, 0.4, accuracy: 1e-7)
        XCTAssertEqual(vision.width, 0.4, accuracy: 1e-7)
        XCTAssertEqual(vision.height, 0.2, accuracy: 1e-7)
    }

    /// CoordinateConventions.md.
    func testCoordinateConventionsArticle() throws {
        let box = BoundingBox(x: 0.5, y: 0.5, width: 0.5, height: 0.25)
        let corners = box.corners
        XCTAssertEqual([corners.left, corners.top, corners.right, corners.bottom], [0.25, 0.375, 0.75, 0.625])
        let same = BoundingBox(left: 0.25, top: 0.375, right: 0.75, bottom: 0.625)
        XCTAssertEqual(same, box)
        let pixels = box.pixelRect(imageWidth: 640, imageHeight: 480)
        XCTAssertEqual(pixels, Rect(x: 160, y: 180, width: 320, height: 120))
        let back = BoundingBox(pixelRect: pixels, imageWidth: 640, imageHeight: 480)
        XCTAssertEqual(back, box)

        let vision = box.visionRect
        XCTAssertEqual(vision, Rect(x: 0.25, y: 0.375, width: 0.5, height: 0.25))
        let fromVision = BoundingBox(visionRect: vision)
        XCTAssertEqual(fromVision, box)

        let fit = try XCTUnwrap(InputGeometry(preparation: .scaleFit, imageWidth: 640, imageHeight: 480,
                                              networkWidth: 416, networkHeight: 416))
        XCTAssertEqual(fit.placement, Rect(x: 0, y: 52, width: 416, height: 312))
        let inImage = fit.toImage(BoundingBox(x: 0.5, y: 0.5, width: 0.5, height: 0.375))
        XCTAssertEqual(inImage, BoundingBox(x: 0.5, y: 0.5, width: 0.5, height: 0.5))
        let inNetwork = fit.toNetwork(inImage)
        XCTAssertEqual(inNetwork, BoundingBox(x: 0.5, y: 0.5, width: 0.5, height: 0.375))

        let letterbox = try XCTUnwrap(InputGeometry(preparation: .letterbox, imageWidth: 333, imageHeight: 1001,
                                                    networkWidth: 416, networkHeight: 416))
        XCTAssertEqual(letterbox.placement.width, 138)
    }
}
