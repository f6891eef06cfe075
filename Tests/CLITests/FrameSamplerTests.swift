@testable import darknet_swift
import XCTest

/// `--every`, `--fps` (`FrameSampler`) and `--raw` (`RawFrameSpec`) on their own.
final class FrameSamplerTests: XCTestCase {
    func taken(_ sampler: FrameSampler, _ pts: [Double?]) -> [Int] {
        var sampler = sampler
        return pts.indices.filter { sampler.takes(index: $0, pts: pts[$0]) }
    }

    func testEveryAndFps() {
        let thirty = (0..<12).map { Double($0) / 30 }
        XCTAssertEqual(taken(FrameSampler(every: 4), thirty), [0, 4, 8])
        XCTAssertEqual(taken(FrameSampler(fps: 10), thirty), [0, 3, 6, 9])
        XCTAssertEqual(taken(FrameSampler(), thirty), Array(0..<12))
        // Variable rate: at most one frame per 1/F slot, the first in it.
        XCTAssertEqual(taken(FrameSampler(fps: 2), [0, 0.1, 0.45, 0.5, 0.9, 1.6, 1.7]), [0, 3, 5])
        // A clock that goes back (a reconnection) starts the slots again; no timestamps: all taken.
        XCTAssertEqual(taken(FrameSampler(fps: 1), [5, 5.5, 6.1, 0.2, 0.4, 1.3]), [0, 2, 3, 5])
        XCTAssertEqual(taken(FrameSampler(fps: 1), [nil, nil]), [0, 1])
    }

    func testRawSpecs() {
        XCTAssertEqual(RawFrameSpec("640x480")?.frameBytes, 640 * 480 * 3)
        XCTAssertEqual(RawFrameSpec("640X480:GRAY")?.frameBytes, 640 * 480)
        XCTAssertEqual(RawFrameSpec("2x2:bgra")?.description, "2x2:bgra")
        XCTAssertEqual(RawFrameSpec("2x2:rgb24")?.description, "2x2")
        for bad in ["640", "640x", "x480", "0x480", "640x480:", "640x480:yuv420p", "640x480:rgb24:x", "100000x100000", "-1x2"] {
            XCTAssertNil(RawFrameSpec(bad), bad)
        }
    }
}
