import XCTest
import YOLO

final class CoordinatesTests: XCTestCase {
    let box = BoundingBox(x: 0.5, y: 0.5, width: 0.5, height: 0.25)

    func testCentreCornerPixelAndVisionConversions() {
        XCTAssertEqual(box.corners.left, 0.25)
        XCTAssertEqual(box.corners.bottom, 0.625)
        XCTAssertEqual(box.rect, Rect(x: 0.25, y: 0.375, width: 0.5, height: 0.25))
        XCTAssertEqual(BoundingBox(rect: box.rect), box)
        // 640 x 480 pixels: origin (0.25·640, 0.375·480) = (160, 180), size 320 x 120.
        XCTAssertEqual(box.pixelRect(imageWidth: 640, imageHeight: 480), Rect(x: 160, y: 180, width: 320, height: 120))
        XCTAssertEqual(BoundingBox(pixelRect: Rect(x: 160, y: 180, width: 320, height: 120), imageWidth: 640, imageHeight: 480), box)
        // Vision: lower-left origin, y up: origin y = 1 − bottom = 1 − 0.625 = 0.375.
        let high = BoundingBox(left: 0.1, top: 0.05, right: 0.3, bottom: 0.25)
        XCTAssertEqual(high.visionRect.y, 0.75, accuracy: 1e-7, "a box near the top has a Vision origin near 1")
        XCTAssertEqual(BoundingBox(visionRect: high.visionRect).y, high.y, accuracy: 1e-7)
        XCTAssertEqual(BoundingBox(visionRect: box.visionRect), box)
    }

    func testPlacementOfEachPreparation() throws {
        // 640 x 480 into 416 x 416.
        func placement(_ p: InputPreparation, _ w: Int = 640, _ h: Int = 480) throws -> Rect {
            try XCTUnwrap(InputGeometry(preparation: p, imageWidth: w, imageHeight: h, networkWidth: 416, networkHeight: 416)).placement
        }
        // Fit: scale min(416/640, 416/480) = 0.65 -> 416 x 312, centred: y offset (416 − 312)/2 = 52.
        XCTAssertEqual(try placement(.scaleFit), Rect(x: 0, y: 52, width: 416, height: 312))
        XCTAssertEqual(try placement(.letterbox), Rect(x: 0, y: 52, width: 416, height: 312))
        XCTAssertEqual(try placement(.scaleFill), Rect(x: 0, y: 0, width: 416, height: 416))
        // Crop: scale max(...) = 416/480 -> 554.67 x 416, x offset −69.33.
        let crop = try placement(.centerCrop)
        XCTAssertEqual(crop.width, 640 * 416 / 480, accuracy: 1e-9)
        XCTAssertEqual(crop.x, -(640 * 416 / 480 - 416) / 2, accuracy: 1e-9)
        // 333 x 1001: darknet's letterbox rounds the width down, (333·416)/1001 = 138; aspect-fit keeps 138.39.
        XCTAssertEqual(try placement(.letterbox, 333, 1001).width, 138)
        XCTAssertEqual(try placement(.scaleFit, 333, 1001).width, 333 * 416 / 1001.0, accuracy: 1e-9)
        XCTAssertNil(InputGeometry(preparation: .letterbox, imageWidth: 0, imageHeight: 1, networkWidth: 1, networkHeight: 1))
    }

    func testHandWorkedInverseMappings() throws {
        let fit = try XCTUnwrap(InputGeometry(preparation: .scaleFit, imageWidth: 640, imageHeight: 480, networkWidth: 416, networkHeight: 416))
        // Network box centred, 0.5 x 0.375 -> image: y = (0.5·416 − 52)/312 = 0.5, h = 0.375·416/312 = 0.5.
        XCTAssertEqual(fit.toImage(BoundingBox(x: 0.5, y: 0.5, width: 0.5, height: 0.375)), BoundingBox(x: 0.5, y: 0.5, width: 0.5, height: 0.5))
        let crop = try XCTUnwrap(InputGeometry(preparation: .centerCrop, imageWidth: 640, imageHeight: 480, networkWidth: 416, networkHeight: 416))
        // Image x = 0.25 -> network (0.25·554.67 − 69.33)/416 = 1/6.
        XCTAssertEqual(crop.toNetwork(BoundingBox(x: 0.25, y: 0.5, width: 0.1, height: 0.1)).x, 1.0 / 6, accuracy: 1e-6)
        // Letterbox toImage is darknet's correct_yolo_boxes arithmetic, bit for bit.
        let geometry = try XCTUnwrap(LetterboxGeometry(imageWidth: 333, imageHeight: 1001, networkWidth: 416, networkHeight: 416))
        let letterbox = try XCTUnwrap(InputGeometry(preparation: .letterbox, imageWidth: 333, imageHeight: 1001, networkWidth: 416, networkHeight: 416))
        XCTAssertEqual(letterbox.toImage(box), geometry.correct(box))
    }

    func testEveryPreparationRoundTrips() throws {
        let boxes = [box, BoundingBox(x: 0.1, y: 0.9, width: 0.05, height: 0.15), BoundingBox(x: 0.73, y: 0.21, width: 0.4, height: 0.3)]
        let sizes = [(640, 480), (333, 1001), (768, 576), (7, 5), (416, 416)]
        for preparation in [InputPreparation.letterbox, .scaleFill, .scaleFit, .centerCrop] {
            for (w, h) in sizes {
                let geometry = try XCTUnwrap(InputGeometry(preparation: preparation, imageWidth: w, imageHeight: h,
                                                           networkWidth: 416, networkHeight: 320))
                for original in boxes {
                    let back = geometry.toImage(geometry.toNetwork(original))
                    for (a, b) in zip([back.x, back.y, back.width, back.height], [original.x, original.y, original.width, original.height]) {
                        XCTAssertEqual(a, b, accuracy: 2e-6, "\(preparation) \(w)x\(h)")
                    }
                    let forth = geometry.toNetwork(geometry.toImage(original))
                    XCTAssertEqual(forth.x, original.x, accuracy: 2e-6, "\(preparation) \(w)x\(h)")
                    XCTAssertEqual(forth.height, original.height, accuracy: 2e-6, "\(preparation) \(w)x\(h)")
                }
            }
        }
    }
}
