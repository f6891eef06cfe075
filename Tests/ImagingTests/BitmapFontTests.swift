import XCTest
@testable import Imaging

final class BitmapFontTests: XCTestCase {
    func testTableCoversPrintableASCII() {
        XCTAssertEqual(BitmapFont.glyphs.count, 95 * 7)
        XCTAssertTrue(BitmapFont.glyphs.allSatisfy { $0 < 32 }, "5 bits per row")
        XCTAssertEqual(Array(BitmapFont.rows(for: " ")), [0, 0, 0, 0, 0, 0, 0])
        // Every visible character has ink.
        for code in 33...126 {
            XCTAssertTrue(BitmapFont.rows(for: Unicode.Scalar(UInt8(code))).contains { $0 != 0 }, "\(code)")
        }
    }

    func testNonASCIIDrawsQuestionMark() {
        XCTAssertEqual(BitmapFont.rows(for: "é"), BitmapFont.rows(for: "?"))
    }

    func testRenderSizeAndScaling() {
        let one = BitmapFont.render("ab", scale: 1)
        XCTAssertEqual(one.width, 11)
        XCTAssertEqual(one.height, 7)
        let three = BitmapFont.render("ab", scale: 3)
        XCTAssertEqual(three.width, 33)
        XCTAssertEqual(three.height, 21)
        XCTAssertEqual(three.bits.filter { $0 }.count, one.bits.filter { $0 }.count * 9)
        // 'I' row 0 is .###. → columns 1...3 inked.
        let i = BitmapFont.render("I", scale: 1)
        XCTAssertEqual(Array(i.bits[0..<5]), [false, true, true, true, false])
    }
}
