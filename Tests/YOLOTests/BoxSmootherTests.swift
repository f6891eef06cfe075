import XCTest
import YOLO

final class BoxSmootherTests: XCTestCase {
    func detection(_ x: Float, classId: Int = 0, confidence: Float = 0.9) -> Detection {
        Detection(classId: classId, confidence: confidence, box: BoundingBox(x: x, y: 0.5, width: 0.2, height: 0.2))
    }

    /// A box moving right by 0.01 per frame: with a window of 3, from the third frame on the
    /// smoothed centre is the mean of the last three, i.e. one step (0.01) behind.
    func testMovingBoxIsAveragedOverTheWindow() {
        var smoother = BoxSmoother(window: 3)
        let xs: [Float] = [0.30, 0.31, 0.32, 0.33, 0.34]
        let smoothed = xs.map { smoother.update([detection($0)])[0].box.x }
        XCTAssertEqual(smoothed[0], 0.30, accuracy: 1e-6)
        XCTAssertEqual(smoothed[1], 0.305, accuracy: 1e-6)
        XCTAssertEqual(smoothed[2], 0.31, accuracy: 1e-6)
        XCTAssertEqual(smoothed[3], 0.32, accuracy: 1e-6)
        XCTAssertEqual(smoothed[4], 0.33, accuracy: 1e-6)
        XCTAssertEqual(smoother.trackedObjects, 1)
    }

    func testResetClassChangeAndTwoObjects() {
        var smoother = BoxSmoother(window: 4)
        _ = smoother.update([detection(0.3)])
        XCTAssertEqual(smoother.update([detection(0.32)])[0].box.x, 0.31, accuracy: 1e-6)
        // Another class at the same place starts its own history.
        XCTAssertEqual(smoother.update([detection(0.34, classId: 1)])[0].box.x, 0.34, accuracy: 1e-6)
        smoother.reset()
        XCTAssertEqual(smoother.trackedObjects, 0)
        XCTAssertEqual(smoother.update([detection(0.5)])[0].box.x, 0.5, accuracy: 1e-6)
        // Two objects far apart keep separate histories; output order is input order.
        _ = smoother.update([detection(0.5), detection(0.9)])
        let out = smoother.update([detection(0.92), detection(0.52)])
        XCTAssertEqual(out[0].box.x, 0.91, accuracy: 1e-6)
        XCTAssertEqual(out[1].box.x, (0.5 + 0.5 + 0.52) / 3, accuracy: 1e-6)
        // A jump beyond the IoU threshold is a new object.
        XCTAssertEqual(smoother.update([detection(0.1)])[0].box.x, 0.1, accuracy: 1e-6)
        XCTAssertEqual(BoxSmoother(window: 0).window, 1)
    }

    func testFrameRateMeter() {
        var meter = FrameRateMeter(window: 4)
        XCTAssertNil(meter.framesPerSecond)
        XCTAssertNil(meter.medianLatency)
        // Frames end every 0.1 s; latencies 0.05, 0.07, 0.02, 0.03, 0.04.
        let latencies = [0.05, 0.07, 0.02, 0.03, 0.04]
        for (i, latency) in latencies.enumerated() {
            let end = 1.0 + 0.1 * Double(i)
            meter.record(start: end - latency, end: end)
        }
        // Window of 4: the last four frames (0.07, 0.02, 0.03, 0.04), ends 1.1 ... 1.4.
        XCTAssertEqual(meter.count, 4)
        XCTAssertEqual(meter.framesPerSecond ?? 0, 10, accuracy: 1e-9)
        XCTAssertEqual(meter.meanLatency ?? 0, 0.04, accuracy: 1e-12)
        XCTAssertEqual(meter.medianLatency ?? 0, 0.035, accuracy: 1e-12)
        meter.record(start: 1.45, end: 1.5)
        XCTAssertEqual(meter.meanLatency ?? 0, 0.035, accuracy: 1e-12, "window now 0.02, 0.03, 0.04, 0.05")
        meter.reset()
        XCTAssertEqual(meter.count, 0)
        meter.record(start: 0, end: 1)
        meter.record(start: 0, end: 1)
        XCTAssertNil(meter.framesPerSecond, "no time between the ends")
        XCTAssertEqual(FrameRateMeter(window: 1).window, 2)
    }
}
