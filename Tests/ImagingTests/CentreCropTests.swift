import Imaging
import XCTest

/// `shorterSideResizedAndCentreCropped` against AlexeyAB's resize_min + crop_image, by hand.
final class CentreCropTests: XCTestCase {
    /// A 6×4 ramp v = 10·y + x: with side 4 its size is already (w=6·4/4=6, h=4), so no resize;
    /// the centre 4×4 starts at x = 1. A 2-wide target crops at x = 2; a 4×6 target repeats the
    /// edge rows past the border (constrain_int).
    func testCropsTheCentreAndRepeatsEdges() {
        let image = Image(width: 6, height: 4, channels: 1, data: (0..<24).map { Float(($0 / 6) * 10 + $0 % 6) })
        XCTAssertEqual(image.shorterSideResizedAndCentreCropped(side: 4, width: 4, height: 4).data,
                       [1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24, 31, 32, 33, 34])
        XCTAssertEqual(image.shorterSideResizedAndCentreCropped(side: 4, width: 2, height: 1).data, [12, 13])
        let tall = image.shorterSideResizedAndCentreCropped(side: 4, width: 4, height: 6)
        XCTAssertEqual(Array(tall.data.prefix(8)), [1, 2, 3, 4, 1, 2, 3, 4], "row −1 repeats row 0")
        XCTAssertEqual(Array(tall.data.suffix(4)), [31, 32, 33, 34], "row 4 repeats row 3")
    }

    /// The shorter side is scaled with integer division (resize_min): 120×80 at 32 → 48×32.
    func testScalesTheShorterSide() {
        let image = Image(width: 120, height: 80, channels: 3, fill: 0.5)
        let out = image.shorterSideResizedAndCentreCropped(side: 32, width: 32, height: 32)
        XCTAssertEqual([out.width, out.height, out.channels], [32, 32, 3])
        XCTAssertEqual(out.data.first, 0.5)
        let portrait = Image(width: 80, height: 120, channels: 1, fill: 1).shorterSideResizedAndCentreCropped(side: 32, width: 32, height: 32)
        XCTAssertEqual([portrait.width, portrait.height], [32, 32])
    }
}
