@testable import Darknet
import Foundation
import XCTest

/// The threshold a cfg's darknet keeps boxes above when none is given: AlexeyAB's 0.25
/// (`run_detector`'s `-thresh`), pjreddie's 0.5, with the evidence that decided.
final class DefaultThresholdTests: XCTestCase {
    private let net = "[net]\nwidth=32\nheight=32\nchannels=3\n"

    func testEachDialectsDefaultWithItsReason() throws {
        let pjreddie = try ModelDescription(text: net + "[convolutional]\nfilters=18\nsize=1\n[yolo]\nmask=0,1\nanchors=1,2,3,4\nclasses=4\nnum=2\n",
                                            file: "p.cfg")
        XCTAssertEqual(pjreddie.defaultThreshold, DefaultThreshold(value: 0.5, reason: "a pjreddie cfg: darknet detect's -thresh default"))
        let alexeyAB = try ModelDescription(text: net + "[convolutional]\nfilters=18\nsize=1\n[yolo]\nmask=0,1\nanchors=1,2,3,4\nclasses=4\nnum=2\nscale_x_y=1.05\n",
                                            file: "a.cfg")
        XCTAssertEqual(alexeyAB.defaultThreshold.value, 0.25)
        XCTAssertEqual(alexeyAB.defaultThreshold.description,
                       "0.25 (an AlexeyAB cfg (key 'scale_x_y' at line 13): his detector test's -thresh default)")
    }
}
