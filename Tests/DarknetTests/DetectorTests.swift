import Darknet
import Foundation
import Imaging
import TestSupport
import XCTest
import YOLO

/// darknet's detections, written by `tools/oracle/darknet-oracle.c detect` (Fixtures/README.md).
struct DetectionGolden: Decodable {
    struct Entry: Decodable {
        var classId: Int
        /// Absent when the oracle was given no names file.
        var name: String?
        var prob: Double
        var box: [Double]
        var left: Int
        var top: Int
        var right: Int
        var bottom: Int
    }

    var imageWidth: Int
    var imageHeight: Int
    var detections: [Entry]
}

/// Our detections equal darknet's: the same (class, box) entries, probabilities within 0.5
/// points, pixel boxes within 1 px, normalised boxes within 1e-3.
func assertMatchesDarknet(_ detections: [Detection], _ golden: DetectionGolden, image: Image,
                          file: StaticString = #filePath, line: UInt = #line) {
    var ours = detections
    XCTAssertEqual(ours.count, golden.detections.count, file: file, line: line)
    for expected in golden.detections {
        let name = expected.name ?? "class \(expected.classId)"
        // The same class with the nearest box (largest coordinate difference).
        func distance(_ i: Int) -> Double {
            let b = ours[i].box
            return zip([b.x, b.y, b.width, b.height], expected.box).map { abs(Double($0) - $1) }.max() ?? 0
        }
        guard let index = ours.indices.filter({ ours[$0].classId == expected.classId }).min(by: { distance($0) < distance($1) }) else {
            XCTFail("no \(name) found", file: file, line: line); continue
        }
        let detection = ours.remove(at: index)
        XCTAssertEqual(Double(detection.confidence), expected.prob, accuracy: 0.005, name, file: file, line: line)
        let box = detection.pixelBox(imageWidth: image.width, imageHeight: image.height)
        // draw_detections clamps left and top below 0 and right and bottom above the image, but
        // not the other way: a box wholly outside the image prints e.g. bottom = -6 (a darknet
        // quirk). Our pixel boxes are clamped on every side; compare with darknet's, clamped.
        let (maxX, maxY) = (image.width - 1, image.height - 1)
        let darknetBox = [min(max(expected.left, 0), maxX), min(max(expected.top, 0), maxY),
                          min(max(expected.right, 0), maxX), min(max(expected.bottom, 0), maxY)]
        for (a, b) in zip([box.left, box.top, box.right, box.bottom], darknetBox) {
            XCTAssertLessThanOrEqual(abs(a - b), 1, "\(name) box \(box) vs darknet \(darknetBox)", file: file, line: line)
        }
        for (a, b) in zip([detection.box.x, detection.box.y, detection.box.width, detection.box.height], expected.box) {
            XCTAssertEqual(Double(a), b, accuracy: 1e-3, name, file: file, line: line)
        }
    }
    XCTAssertEqual(ours.count, 0, "extra detections: \(ours)", file: file, line: line)
}

final class DetectorTests: XCTestCase {
    /// yolov3-tiny with the real weights on dog.jpg at darknet's defaults: exactly darknet's
    /// five detections (dog 56%, truck 55%, car 52% on the truck's box, car 62%, bicycle 59%),
    /// probabilities within 0.5 points, pixel boxes within 1 px.
    func testTinyOnDogMatchesDarknet() throws {
        let golden = try JSONDecoder().decode(DetectionGolden.self,
                                              from: Data(contentsOf: try TestData.fixture("yolov3-tiny-dog.json")))
        let detector = try Detector(cfg: try TestData.cfg("yolov3-tiny"), weights: try TestData.path("yolov3-tiny.weights"))
        let image = try Image(contentsOf: try TestData.path("data/dog.jpg"))
        XCTAssertEqual([image.width, image.height], [golden.imageWidth, golden.imageHeight])
        XCTAssertEqual(golden.detections.map { "\($0.name ?? "") \(Int(($0.prob * 100).rounded()))%" }.sorted(),
                       ["bicycle 59%", "car 52%", "car 62%", "dog 56%", "truck 55%"], "the fixture is darknet's known answer")
        assertMatchesDarknet(try detector.detect(in: image), golden, image: image)
    }

    /// A model from memory (the cfg's text and the weights file's bytes, as an app bundles or
    /// downloads them) gives exactly the detections of the same files from disk; truncated
    /// bytes fail with an error naming the model and the byte offset, not a crash.
    func testModelFromMemoryMatchesFiles() throws {
        let cfgText = try String(contentsOfFile: try TestData.cfg("yolov3-tiny"), encoding: .utf8)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: try TestData.path("yolov3-tiny.weights")))
        let image = try Image(contentsOf: try TestData.path("data/dog.jpg"))
        let fromFiles = try Detector(cfg: try TestData.cfg("yolov3-tiny"), weights: try TestData.path("yolov3-tiny.weights"))
        let fromMemory = try bytes.withUnsafeBytes { try Detector(cfg: cfgText, weights: $0, name: "tiny") }
        let expected = try fromFiles.detect(in: image)
        XCTAssertEqual(expected.count, 5)
        XCTAssertEqual(try fromMemory.detect(in: image), expected)
        do {
            _ = try bytes.prefix(1000).withUnsafeBytes { try Detector(cfg: cfgText, weights: $0, name: "tiny") }
            XCTFail("truncated weights were accepted")
        } catch let error as WeightsError {
            guard case .tooShort(let file, _, _, _, _, let actual) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(file, "tiny.weights")
            XCTAssertEqual(actual, 1000)
        }
    }

    /// Every convolution method gives darknet's detections: auto (Winograd on 4 layers),
    /// im2col everywhere (darknet's own method) and Winograd on every eligible layer.
    func testEveryConvolutionAlgorithmMatchesDarknet() throws {
        let golden = try JSONDecoder().decode(DetectionGolden.self,
                                              from: Data(contentsOf: try TestData.fixture("yolov3-tiny-dog.json")))
        let image = try Image(contentsOf: try TestData.path("data/dog.jpg"))
        for algorithm in ConvolutionAlgorithm.allCases {
            let detector = try Detector(cfg: try TestData.cfg("yolov3-tiny"), weights: try TestData.path("yolov3-tiny.weights"),
                                        options: DetectorOptions(execution: ExecutionOptions(convolutionAlgorithm: algorithm)))
            XCTAssertEqual(detector.model.convolutionMethods(ExecutionOptions(convolutionAlgorithm: .im2col)).compactMap { $0 }.count, 13)
            assertMatchesDarknet(try detector.detect(in: image), golden, image: image)
        }
    }

    func testStretchAndAgnosticOptions() throws {
        let image = try Image(contentsOf: try TestData.path("data/dog.jpg"))
        var options = DetectorOptions()
        options.nmsMode = .agnostic
        let agnostic = try Detector(cfg: try TestData.cfg("yolov3-tiny"), weights: try TestData.path("yolov3-tiny.weights"), options: options)
        let boxes = try agnostic.detect(in: image)
        // Class-agnostic NMS: no two different boxes overlap by more than the IoU threshold,
        // whatever their classes.
        let distinct = Array(Set(boxes.map(\.box)))
        for (i, a) in distinct.enumerated() {
            for b in distinct[(i + 1)...] { XCTAssertLessThanOrEqual(a.iou(b), 0.45) }
        }
        XCTAssertFalse(boxes.isEmpty)

        options = DetectorOptions(width: 320, height: 320, mapping: .stretch)
        let stretch = try Detector(cfg: try TestData.cfg("yolov3-tiny"), weights: try TestData.path("yolov3-tiny.weights"), options: options)
        XCTAssertEqual(stretch.model.net.width, 320)
        XCTAssertEqual(stretch.prepare(image).width, 320)
        XCTAssertEqual(stretch.prepare(image).height, 320)
    }

    /// A batch of the seven photos (several sizes, one gray) gives each photo its own
    /// detections, under every convolution method, and dog.jpg in a batch is still darknet's.
    func testBatchGivesEachImageItsOwnDetections() throws {
        let names = ["dog", "eagle", "giraffe", "horses", "kite", "person", "scream"]
        let images = try names.map { try Image(contentsOf: try TestData.path("data/\($0).jpg")) }
        let golden = try JSONDecoder().decode(DetectionGolden.self,
                                              from: Data(contentsOf: try TestData.fixture("yolov3-tiny-dog.json")))
        for algorithm in ConvolutionAlgorithm.allCases {
            let detector = try Detector(cfg: try TestData.cfg("yolov3-tiny"), weights: try TestData.path("yolov3-tiny.weights"),
                                        options: DetectorOptions(execution: ExecutionOptions(convolutionAlgorithm: algorithm)))
            let alone = try images.map { try detector.detect(in: $0) }
            XCTAssertEqual(try detector.detect(in: images), alone, "\(algorithm)")
            XCTAssertEqual(try detector.detect(in: Array(images[2...4])), Array(alone[2...4]), "\(algorithm), batch of 3")
            assertMatchesDarknet(try detector.detect(in: [images[1], images[0]])[1], golden, image: images[0])
        }
        XCTAssertEqual(try Detector(cfg: try TestData.cfg("yolov3-tiny"), weights: try TestData.path("yolov3-tiny.weights"))
            .detect(in: [Image]()), [])
    }

    /// One detector shared by several threads gives each thread the serial answer.
    func testSharedDetectorAcrossThreads() throws {
        let detector = try Detector(cfg: try TestData.cfg("yolov3-tiny"), weights: try TestData.path("yolov3-tiny.weights"),
                                    options: DetectorOptions(width: 224, height: 224))
        let images = try ["dog", "eagle", "horses", "person"].map { try Image(contentsOf: try TestData.path("data/\($0).jpg")) }
        let serial = try images.map { try detector.detect(in: $0) }
        let results = ResultBox(count: images.count * 3)
        DispatchQueue.concurrentPerform(iterations: images.count * 3) { i in
            results.set(i, Result { try detector.detect(in: images[i % images.count]) })
        }
        for i in 0..<(images.count * 3) {
            XCTAssertEqual(try results.get(i).get(), serial[i % images.count], "call \(i)")
        }
    }
}

/// Collects results written from several threads.
final class ResultBox: @unchecked Sendable {
    private var values: [Result<[Detection], Error>?]
    private let lock = NSLock()
    init(count: Int) { values = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ value: Result<[Detection], Error>) { lock.lock(); values[i] = value; lock.unlock() }
    func get(_ i: Int) -> Result<[Detection], Error> {
        lock.lock(); defer { lock.unlock() }
        return values[i] ?? .failure(CocoaError(.featureUnsupported))
    }
}
