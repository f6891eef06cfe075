import Darknet
import Foundation
import Imaging
import TestSupport
import XCTest
import YOLO

/// The code of the DocC articles in Sources/Darknet/Darknet.docc, compiled and run here;
/// `DocSnippet` checks that each article shows exactly this code. The articles name their
/// files as a user has them (`yolov3.cfg`, `dog.jpg` in the working directory): each test runs
/// in a temporary folder of links to the fetched files. No real yolov3 weights can be
/// fetched, so there `yolov3.cfg` and `yolov3.weights` link to yolov3-tiny's, except for the
/// benchmark article, which needs no weights and runs the real yolov3.cfg.
final class DocArticleTests: XCTestCase {
    /// A temporary working directory holding `links` (name → fetched file), removed afterwards.
    private func workingDirectory(_ links: [String: String]) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, target) in links {
            let url = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(at: url, withDestinationURL: URL(fileURLWithPath: target))
        }
        let previous = FileManager.default.currentDirectoryPath
        _ = FileManager.default.changeCurrentDirectoryPath(folder.path)
        addTeardownBlock {
            _ = FileManager.default.changeCurrentDirectoryPath(previous)
            try? FileManager.default.removeItem(at: folder)
        }
    }

    func testGettingStarted() throws {
        try DocSnippet.assertSame("getting-started", in: "Sources/Darknet/Darknet.docc/GettingStarted.md")
        try workingDirectory(["weights/cfg/yolov3-tiny.cfg": try TestData.cfg("yolov3-tiny"),
                              "weights/yolov3-tiny.weights": try TestData.path("yolov3-tiny.weights"),
                              "weights/data/dog.jpg": try TestData.path("data/dog.jpg")])

        // snippet: getting-started
        let detector = try Detector(cfg: "weights/cfg/yolov3-tiny.cfg",
                                    weights: "weights/yolov3-tiny.weights")
        let image = try Image(contentsOf: "weights/data/dog.jpg")
        let detections = try detector.detect(in: image)
        // end snippet

        XCTAssertEqual(detections.map(\.classId).sorted(), [1, 2, 2, 7, 16], "bicycle, car, car, truck, dog")
    }

    func testRunYOLOv3In10Lines() throws {
        try DocSnippet.assertSame("yolov3-10-lines", in: "Sources/Darknet/Darknet.docc/RunYOLOv3In10Lines.md")
        try workingDirectory(["yolov3.cfg": try TestData.cfg("yolov3-tiny"),
                              "yolov3.weights": try TestData.path("yolov3-tiny.weights"),
                              "coco.names": try TestData.path("data/coco.names"),
                              "dog.jpg": try TestData.path("data/dog.jpg")])
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        // snippet: yolov3-10-lines
        let options = DetectorOptions(threshold: 0.5, nmsThreshold: 0.45, width: 416, height: 416)
        let detector = try Detector(cfg: "yolov3.cfg", weights: "yolov3.weights", options: options)
        let names = try ClassNames.load(contentsOf: "coco.names")
        var image = try Image(contentsOf: "dog.jpg")
        for detection in try detector.detect(in: image) {
            let box = detection.pixelBox(imageWidth: image.width, imageHeight: image.height)
            print(names[detection.classId], detection.confidence, box)
            image.drawBox(left: box.left, top: box.top, right: box.right, bottom: box.bottom, lineWidth: 3, red: 1, green: 0, blue: 0)
        }
        try image.write(to: "dog-detections.png")
        // end snippet

        XCTAssertEqual(printed.map { $0.split(separator: " ")[0] }.sorted(), ["bicycle", "car", "car", "dog", "truck"])
        let drawn = try Image(contentsOf: "dog-detections.png")
        XCTAssertEqual([drawn.width, drawn.height], [768, 576])
        let original = try Image(contentsOf: "dog.jpg")
        XCTAssertNotEqual(drawn.data, original.data, "boxes were drawn")
    }

    /// The article's code on the real yolov3.cfg at 416 (synthetic weights): one timed forward
    /// pass of yolov3's 65.864 BFLOPs (the exact count; darknet's table rounds each row and
    /// sums to 65.862).
    func testBenchmarkANetwork() throws {
        try DocSnippet.assertSame("benchmark-from-code", in: "Sources/Darknet/Darknet.docc/BenchmarkANetwork.md")
        try workingDirectory(["yolov3.cfg": try TestData.cfg("yolov3")])
        var printed: [[Any]] = []
        func print(_ items: Any...) { printed.append(items) }

        // snippet: benchmark-from-code
        let model = try ModelDescription(contentsOf: "yolov3.cfg", width: 416, height: 416)
        let bytes = SyntheticWeights.bytes(for: model, seed: 1)
        let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
        let network = try Network(model: model, weights: weights)
        let input = SyntheticWeights.input(model.inputShape)
        try network.forward(input)                       // warm-up
        let start = ContinuousClock.now
        try network.forward(input)
        print("forward:", ContinuousClock.now - start, "for", model.totalBflops, "BFLOPs")
        // end snippet

        XCTAssertEqual(printed.count, 1)
        let line = try XCTUnwrap(printed.first)
        XCTAssertEqual(line.count, 5)
        XCTAssertEqual(line[0] as? String, "forward:")
        let elapsed = try XCTUnwrap(line[1] as? Duration)
        XCTAssertGreaterThan(elapsed, .zero)
        XCTAssertEqual(try XCTUnwrap(line[3] as? Double), 65.864, accuracy: 0.0005)
        XCTAssertEqual(model.layers.count, 107)
    }
}
