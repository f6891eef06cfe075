import YOLO
import XCTest

/// darknet's label files and where `detector map` looks for them.
final class LabelFileTests: XCTestCase {
    func testParsesObjectsAndSkipsBlankLines() throws {
        let boxes = try LabelFile.parse("0 0.5 0.5 0.25 0.125\r\n\n16\t0.1 0.2 0.3 0.4\n", file: "a.txt", classes: 80)
        XCTAssertEqual(boxes, [LabelBox(classId: 0, box: BoundingBox(x: 0.5, y: 0.5, width: 0.25, height: 0.125)),
                               LabelBox(classId: 16, box: BoundingBox(x: 0.1, y: 0.2, width: 0.3, height: 0.4))])
        XCTAssertEqual(try LabelFile.parse("", file: "empty.txt", classes: 1), [])
    }

    func testErrorsNameTheFileAndLine() {
        XCTAssertThrowsError(try LabelFile.parse("0 0.5 0.5 0.2 0.2\n0 0.5 0.5 0.2\n", file: "b.txt", classes: 2)) { error in
            XCTAssertEqual("\(error)", "b.txt:2: expected 'class x_center y_center width height', found '0 0.5 0.5 0.2'")
        }
        XCTAssertThrowsError(try LabelFile.parse("dog 0.5 0.5 0.2 0.2\n", file: "c.txt", classes: 2)) { error in
            XCTAssertEqual("\(error)", "c.txt:1: expected 'class x_center y_center width height', found 'dog 0.5 0.5 0.2 0.2'")
        }
        XCTAssertThrowsError(try LabelFile.parse("2 0.5 0.5 0.2 0.2\n", file: "d.txt", classes: 2)) { error in
            XCTAssertEqual("\(error)", "d.txt:1: class 2 is outside the model's 2 classes (0...1)")
        }
        XCTAssertThrowsError(try LabelFile.parse("1 nan 0.5 0.2 0.2\n", file: "e.txt", classes: 2)) { error in
            XCTAssertEqual("\(error)", "e.txt:1: a coordinate is not a finite number in '1 nan 0.5 0.2 0.2'")
        }
    }

    /// `replace_image_to_label`: COCO's and VOC's folders, the extension at the end only, and
    /// any other `images/` folder left as it is (the label beside the image).
    func testLabelPathsAsDarknetFindsThem() {
        XCTAssertEqual(LabelFile.path(forImage: "/coco/images/val2017/000001.jpg"), "/coco/labels/val2017/000001.txt")
        XCTAssertEqual(LabelFile.path(forImage: "VOC2007/JPEGImages/0001.JPEG"), "VOC2007/labels/0001.txt")
        XCTAssertEqual(LabelFile.path(forImage: "data/obj/images/a.jpg.png"), "data/obj/images/a.jpg.txt")
        XCTAssertEqual(LabelFile.path(forImage: "data/obj/x.PNG "), "data/obj/x.txt")
        XCTAssertNil(LabelFile.path(forImage: "data/obj/x.gif"))
    }
}
