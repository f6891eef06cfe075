@testable import Darknet
import Foundation
import Imaging
import TestSupport
import XCTest
import YOLO

/// YOLOv2's `[reorg]` and `[region]` and the VOC / Open Images detectors against Debian's
/// libdarknet (Fixtures/*-synthetic.json and *-synthetic-dog.json, `tools/regen-goldens region`):
/// every layer within the goldens' tolerance under every convolution method, and darknet's
/// own detections (get_network_boxes + do_nms_sort) on dog.jpg.
final class RegionGoldenTests: XCTestCase {
    func testYolov2EveryLayer() throws { try checkSynthetic(cfg: "yolov2", golden: "yolov2-416-synthetic.json") }
    func testYolov2TinyEveryLayer() throws {
        try checkSynthetic(cfg: "yolov2-tiny", golden: "yolov2-tiny-416-synthetic.json")
    }
    func testYolov2VOCEveryLayer() throws {
        try checkSynthetic(cfg: "yolov2-voc", golden: "yolov2-voc-416-synthetic.json")
    }
    func testYolov2TinyVOCEveryLayer() throws {
        try checkSynthetic(cfg: "yolov2-tiny-voc", golden: "yolov2-tiny-voc-416-synthetic.json")
    }
    func testYolov3VOCEveryLayer() throws {
        try checkSynthetic(cfg: "yolov3-voc", golden: "yolov3-voc-416-synthetic.json")
    }
    func testYolov3OpenImagesEveryLayer() throws {
        try checkSynthetic(cfg: "yolov3-openimages", golden: "yolov3-openimages-320-synthetic.json")
    }

    /// darknet's detections with synthetic weights: yolov2-tiny at threshold 0.02 (hundreds of
    /// (box, class) entries through NMS) and yolov2 at 0.05, one image at a time and in a batch.
    func testRegionDetectionsMatchDarknet() throws {
        for (cfg, threshold) in [("yolov2-tiny", Float(0.02)), ("yolov2", 0.05)] {
            let golden = try JSONDecoder().decode(DetectionGolden.self,
                                                  from: Data(contentsOf: try TestData.fixture("\(cfg)-416-synthetic-dog.json")))
            XCTAssertFalse(golden.detections.isEmpty, cfg)
            let model = try ModelDescription(contentsOf: try TestData.cfg(cfg), width: 416, height: 416)  // yolov2.cfg says 608
            let bytes = SyntheticWeights.bytes(for: model, seed: 1)
            let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
            let detector = try Detector(model: model, weights: weights, options: DetectorOptions(threshold: threshold))
            XCTAssertEqual(detector.classCount, 80)
            let image = try Image(contentsOf: try TestData.path("data/dog.jpg"))
            let found = try detector.detect(in: image)
            assertMatchesDarknet(found, golden, image: image)
            XCTAssertEqual(try detector.detect(in: [image, image])[1], found, "\(cfg) in a batch")
        }
    }
}

/// YOLOv1's `[detection]` against Debian's libdarknet (`tools/regen-goldens yolo1`): every
/// layer of yolov1-tiny on the synthetic input, and `darknet yolo test`'s detections on
/// dog.jpg — the photo resized, not letterboxed (the cfg decides: a [detection] head),
/// boxes relative to it, do_nms_sort at test_yolo's 0.4.
final class YOLOv1GoldenTests: XCTestCase {
    func testYolov1TinyEveryLayer() throws {
        try checkSynthetic(cfg: "yolov1-tiny", golden: "yolov1-tiny-448-synthetic.json")
    }

    func testYolov1TinyDetectionsMatchDarknet() throws {
        let golden = try JSONDecoder().decode(DetectionGolden.self,
                                              from: Data(contentsOf: try TestData.fixture("yolov1-tiny-448-synthetic-dog.json")))
        XCTAssertFalse(golden.detections.isEmpty)
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov1-tiny"), width: 448, height: 448)
        XCTAssertEqual(model.inputFitting.mapping, .stretch)
        XCTAssertEqual(model.inputFitting.reason, "a YOLOv1 [detection] head: darknet yolo test resizes")
        let bytes = SyntheticWeights.bytes(for: model, seed: 1)
        let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
        let detector = try Detector(model: model, weights: weights, options: DetectorOptions(threshold: 0.5, nmsThreshold: 0.4))
        XCTAssertEqual(detector.classCount, 20)
        let image = try Image(contentsOf: try TestData.path("data/dog.jpg"))
        let found = try detector.detect(in: image)
        assertMatchesDarknet(found, golden, image: image)
        XCTAssertEqual(try detector.detect(in: [image, image])[1], found, "in a batch")
    }
}
