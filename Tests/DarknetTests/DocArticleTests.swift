import Darknet
import Foundation
import Imaging
import XCTest
import YOLO

/// The code of the DocC articles in Sources/Darknet/Darknet.docc, compiled and run with the
/// fetched yolov3-tiny instead of yolov3 (keep them in sync).
final class DocArticleTests: XCTestCase {
    func testRunYOLOv3In10Lines() throws {
        let cfg = try TestData.cfg("yolov3-tiny"), weights = try TestData.path("yolov3-tiny.weights")
        let coco = try TestData.path("data/coco.names"), dog = try TestData.path("data/dog.jpg")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("doc-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        var printed = 0
        func print(_ items: Any...) { printed += 1 }

        let options = DetectorOptions(threshold: 0.5, nmsThreshold: 0.45, width: 416, height: 416)
        let detector = try Detector(cfg: cfg, weights: weights, options: options)
        let names = try ClassNames.load(contentsOf: coco)
        var image = try Image(contentsOf: dog)
        for detection in try detector.detect(in: image) {
            let box = detection.pixelBox(imageWidth: image.width, imageHeight: image.height)
            print(names[detection.classId], detection.confidence, box)
            image.drawBox(left: box.left, top: box.top, right: box.right, bottom: box.bottom, lineWidth: 3, red: 1, green: 0, blue: 0)
        }
        try image.write(to: output)

        XCTAssertEqual(printed, 5)
        XCTAssertTrue(FileManager.default.fileExists(atPath: output))
    }

    func testBenchmarkANetwork() throws {
        var printed = 0
        func print(_ items: Any...) { printed += 1 }

        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3-tiny"), width: 416, height: 416)
        let bytes = SyntheticWeights.bytes(for: model, seed: 1)
        let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
        let network = try Network(model: model, weights: weights)
        let input = SyntheticWeights.input(model.inputShape)
        try network.forward(input)                       // warm-up
        let start = ContinuousClock.now
        try network.forward(input)
        print("forward:", ContinuousClock.now - start, "for", model.totalBflops, "BFLOPs")

        XCTAssertEqual(printed, 1)
    }
}
