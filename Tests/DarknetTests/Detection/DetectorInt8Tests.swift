@testable import Darknet
import Imaging
import Kernels
import TestSupport
import XCTest
import YOLO

/// yolov3-tiny (real weights) in int8 against the f32 detector on the sample photos, with a
/// calibration made from four of them: the tolerances issue #54 states for its detector, the
/// bits of int8 the same on any thread count and in a batch as alone, and the layers kept f32.
final class DetectorInt8Tests: XCTestCase {
    static let photos = ["dog", "eagle", "giraffe", "horses", "kite", "person", "scream"]

    static func calibration() throws -> Calibration {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3-tiny"))
        let calibrator = try Calibrator(model: model, weightsFile: try TestData.path("yolov3-tiny.weights"),
                                        execution: ExecutionOptions(threads: 2))
        let images = try ["dog", "eagle", "giraffe", "horses"].map { try Image(contentsOf: try TestData.path("data/\($0).jpg")) }
        return try calibrator.calibrate(count: images.count) { images[$0] }
    }

    static func detector(_ precision: Precision, threads: Int = 2, threshold: Float = 0.5) throws -> Detector {
        try Detector(cfg: try TestData.cfg("yolov3-tiny"), weights: try TestData.path("yolov3-tiny.weights"),
                     options: DetectorOptions(threshold: threshold, execution: ExecutionOptions(threads: threads, precision: precision)))
    }

    /// Every f32 detection (threshold 0.5) is found by int8 at threshold 0.25: the same class,
    /// IoU at least 0.75, confidence within 0.15 (yolov3-tiny's confidences sit near 0.5, so a
    /// threshold of 0.5 on both sides would count a 0.53 that became 0.48 as lost; the measured
    /// figures at equal thresholds are in docs/performance.md). Of the 13 convolutions the
    /// first and the two feeding the heads stay f32.
    func testInt8FindsTheF32DetectionsOnThePhotos() throws {
        _ = try TestTools.requireOneDNN(OneDNN.loaded)
        let calibration = try Self.calibration()
        XCTAssertEqual(calibration.layers.filter { $0.reason == "the first convolution" }.map(\.layer), [0])
        XCTAssertEqual(calibration.layers.filter { $0.reason?.hasPrefix("feeds the [yolo] layer") == true }.map(\.layer), [15, 22])
        XCTAssertGreaterThanOrEqual(calibration.int8Layers.count, 8, "most of yolov3-tiny runs int8")
        let f32 = try Self.detector(.f32)
        let int8 = try Self.detector(.int8(calibration), threshold: 0.25)
        var found = 0
        for name in Self.photos {
            let image = try Image(contentsOf: try TestData.path("data/\(name).jpg"))
            let expected = try f32.detect(in: image)
            let got = try int8.detect(in: image)
            for detection in expected {
                let best = got.filter { $0.classId == detection.classId }.max { $0.box.iou(detection.box) < $1.box.iou(detection.box) }
                guard let best else {
                    XCTFail("\(name): int8 lost \(detection)")
                    continue
                }
                XCTAssertGreaterThanOrEqual(best.box.iou(detection.box), 0.75, "\(name): \(detection) moved to \(best)")
                XCTAssertEqual(best.confidence, detection.confidence, accuracy: 0.15, "\(name): \(detection) against \(best)")
                found += 1
            }
        }
        XCTAssertGreaterThanOrEqual(found, 15, "the photos have detections to compare")
    }

    /// int8 answers are the same bits on 1, 2 and 3 workers, run after run, and for each image
    /// of a batch as for the image alone.
    func testInt8BitsDoNotDependOnThreadsRunsOrBatch() throws {
        _ = try TestTools.requireOneDNN(OneDNN.loaded)
        let calibration = try Self.calibration()
        try assertSameBitsOnThreadsRunsAndBatch { try Self.detector(.int8(calibration), threads: $0) }
    }
}
