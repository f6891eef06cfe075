import XCTest
@testable import Imaging

final class ClassColorTests: XCTestCase {
    /// darknet's get_color via the oracle for 1, 20, 80 and 9418 classes.
    func testMatchesDarknetGetColor() throws {
        let table = try XCTUnwrap(try Fixtures.manifest()["class_colors"] as? [String: [String: [Double]]])
        var checked = 0
        for (classes, ids) in table {
            for (id, rgb) in ids {
                let color = darknetClassColor(classId: try XCTUnwrap(Int(id)), classes: try XCTUnwrap(Int(classes)))
                XCTAssertEqual(color.red, Float(rgb[0]), "class \(id) of \(classes)")
                XCTAssertEqual(color.green, Float(rgb[1]), "class \(id) of \(classes)")
                XCTAssertEqual(color.blue, Float(rgb[2]), "class \(id) of \(classes)")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 100)
    }

    /// By hand: class 1 of 80 → offset 123457 % 80 = 17, ratio = 17/80*5 = 1.0625 → i = 1, j = 2,
    /// frac 0.0625; red = colors[.][2] = 1, green = 0.9375*0 + 0.0625*1, blue = 0.
    func testClassOneOfEighty() {
        let color = darknetClassColor(classId: 1, classes: 80)
        XCTAssertEqual(color.red, 1)
        XCTAssertEqual(color.green, 0.0625)
        XCTAssertEqual(color.blue, 0)
    }

    func testInvalidInputGivesWhiteNotACrash() {
        XCTAssertTrue(darknetClassColor(classId: 3, classes: 0) == (1, 1, 1))
        XCTAssertTrue(darknetClassColor(classId: -1, classes: 80) == (1, 1, 1))
    }
}
