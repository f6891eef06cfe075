@testable import Darknet
import Foundation
import Imaging
import TestSupport
import XCTest
import YOLO

/// The engine against AlexeyAB's darknet on the project's own AlexeyAB-dialect cfgs
/// (Fixtures/alexeyab: a yolov4-tiny, a scaled-YOLOv4, a Gaussian YOLOv3, an enet-coco, a
/// TridentNet, an XNOR, a convolutional-RNN and a YOLO9000 (class tree) shape at 64×64, with
/// every section and key those models use, and two classifiers, one with a class tree). Goldens by
/// `tools/oracle/ab_goldens.py` from AlexeyAB's darknet built from source (its commit is in
/// each file), on the engine's synthetic weights (seed 1) and a generated 120×80 photo.
///
/// - Detections: `Detector` with no fitting given (the cfg decides: letterbox only for
///   `letter_box=1`) gives AlexeyAB's `detector test` detections after his `nms_kind`, each box
///   within 1 px of the photo and each probability within 0.005; with the other fitting forced
///   it gives his answers under `-letter_box` (or without it). Random weights put most
///   probabilities near 0.3, so a detection within 0.005 of the threshold may be on one side
///   only; every other one must be on both.
/// - Layers: every layer's output on the synthetic input within 1e-4 · (1 + |value|) of his.
final class AlexeyABGoldenTests: XCTestCase {
    struct Golden: Decodable {
        struct Detect: Decodable {
            struct Entry: Decodable {
                var box: [Float]
                var objectness: Float
                var prob: [String: Float]
                var uc: [Float]?
            }
            var letter: Int
            var thresh: Float
            var nms_kind: String
            var beta_nms: Float
            var detections: [Entry]
        }
        struct LayerSamples: Decodable {
            var index: Int
            var type: String
            var count: Int
            var samples: [[Double]]
        }
        var reference: String
        var seed: UInt64
        var weights_fnv1a64: String
        var image: String
        var detect: Detect
        var detect_other: Detect
        var layers: [LayerSamples]
    }

    static let models = ["tiny-v4", "csp", "gaussian", "enet", "trident", "xnor", "crnn", "tree"]
    /// AlexeyAB's NMS_KIND names for each `NMSKind`.
    static let nmsNames: [NMSKind: String] = [.default: "DEFAULT_NMS", .greedy: "GREEDY_NMS", .diou(beta: 0.6): "DIOU_NMS"]

    /// The fixture's path without `.cfg` (a cfg's `tree=` is found beside it).
    static func path(_ name: String) -> String {
        (try? TestData.fixture("alexeyab/\(name).cfg").deletingPathExtension().path) ?? name
    }

    private func load(_ name: String) throws -> (golden: Golden, cfg: String, weights: [UInt8]) {
        let golden = try JSONDecoder().decode(Golden.self, from: Data(contentsOf: TestData.fixture("alexeyab/\(name).json")))
        XCTAssertTrue(golden.reference.hasPrefix("AlexeyAB darknet "), golden.reference)
        let cfg = try String(contentsOf: TestData.fixture("alexeyab/\(name).cfg"), encoding: .utf8)
        let model = try ModelDescription(text: cfg, file: Self.path(name) + ".cfg")
        let weights = SyntheticWeights.bytes(for: model, seed: golden.seed)
        XCTAssertEqual(String(format: "%016llx", SyntheticWeights.fnv1a64(weights)), golden.weights_fnv1a64,
                       "\(name): the synthetic weights are not the bytes the golden was made with")
        return (golden, cfg, weights)
    }

    private func detections(_ name: String, mapping: InputMapping?, golden: Golden.Detect, cfg: String,
                            weights: [UInt8], image: Image) throws -> (Detector, [Detection]) {
        let options = DetectorOptions(threshold: golden.thresh, nmsThreshold: 0.45, mapping: mapping)
        let detector = try weights.withUnsafeBytes { try Detector(cfg: cfg, weights: $0, name: Self.path(name), options: options) }
        return (detector, try detector.detect(in: image))
    }

    /// Every oracle (class, probability, box) above the threshold by more than 0.005 has ours
    /// within 1 px and 0.005, and the other way round.
    private func assertSameDetections(_ ours: [Detection], _ golden: Golden.Detect, image: Image, _ label: String) {
        let reference = golden.detections.flatMap { entry in
            entry.prob.compactMap { key, p in
                p > golden.thresh ? Detection(classId: Int(key)!, confidence: p,
                                              box: BoundingBox(x: entry.box[0], y: entry.box[1], width: entry.box[2], height: entry.box[3])) : nil
            }
        }
        func pixels(_ a: BoundingBox, _ b: BoundingBox) -> Float {
            let w = Float(image.width), h = Float(image.height)
            return max(abs(a.x - b.x) * w, abs(a.width - b.width) * w, abs(a.y - b.y) * h, abs(a.height - b.height) * h)
        }
        func matches(_ a: Detection, in list: [Detection]) -> Bool {
            list.contains { $0.classId == a.classId && abs($0.confidence - a.confidence) <= 0.005 && pixels($0.box, a.box) <= 1 }
        }
        XCTAssertGreaterThan(reference.count, 10, "\(label): too few oracle detections to mean much")
        for detection in reference where detection.confidence > golden.thresh + 0.005 {
            XCTAssertTrue(matches(detection, in: ours), "\(label): AlexeyAB's \(detection) is missing")
        }
        for detection in ours where detection.confidence > golden.thresh + 0.005 {
            XCTAssertTrue(matches(detection, in: reference), "\(label): \(detection) is not AlexeyAB's")
        }
    }

    func testDetectionsAsTheCfgSaysAreAlexeyABs() throws {
        let image = try Image(contentsOf: TestData.fixture("alexeyab/scene-120x80.png").path)
        for name in Self.models {
            let (golden, cfg, weights) = try load(name)
            let (detector, ours) = try detections(name, mapping: nil, golden: golden.detect, cfg: cfg, weights: weights, image: image)
            XCTAssertEqual(detector.model.dialect.dialect, .alexeyAB, name)
            XCTAssertEqual(detector.inputFitting.mapping, golden.detect.letter == 1 ? .letterbox : .stretch, name)
            XCTAssertEqual(Self.nmsNames[detector.nms.kind], golden.detect.nms_kind, name)
            assertSameDetections(ours, golden.detect, image: image, name)
        }
    }

    /// `--letterbox` / `--stretch` (DetectorOptions.mapping) give AlexeyAB's answers with
    /// `-letter_box` given or not.
    func testTheOtherFittingForcedIsAlexeyABsToo() throws {
        let image = try Image(contentsOf: TestData.fixture("alexeyab/scene-120x80.png").path)
        for name in Self.models {
            let (golden, cfg, weights) = try load(name)
            let forced: InputMapping = golden.detect_other.letter == 1 ? .letterbox : .stretch
            XCTAssertNotEqual(golden.detect_other.letter, golden.detect.letter)
            let (detector, ours) = try detections(name, mapping: forced, golden: golden.detect_other, cfg: cfg, weights: weights,
                                                  image: image)
            XCTAssertEqual(detector.inputFitting.reason, "chosen by the caller")
            assertSameDetections(ours, golden.detect_other, image: image, "\(name), \(forced) forced")
        }
    }

    /// `[Gaussian_yolo]`'s uncertainties reach the candidates: each of AlexeyAB's detections has
    /// a candidate at its box with his four σ.
    func testGaussianUncertaintiesAreAlexeyABs() throws {
        let image = try Image(contentsOf: TestData.fixture("alexeyab/scene-120x80.png").path)
        let (golden, cfg, weights) = try load("gaussian")
        let options = DetectorOptions(threshold: golden.detect.thresh)
        let detector = try weights.withUnsafeBytes { try Detector(cfg: cfg, weights: $0, name: "gaussian", options: options) }
        let candidates = try detector.candidates(in: image)
        for entry in golden.detect.detections {
            let box = BoundingBox(x: entry.box[0], y: entry.box[1], width: entry.box[2], height: entry.box[3])
            guard let match = candidates.first(where: { abs($0.box.x - box.x) < 1e-4 && abs($0.box.y - box.y) < 1e-4 }),
                  let uc = match.uncertainty, let expected = entry.uc else { XCTFail("no candidate at \(box)"); continue }
            for (ours, theirs) in zip([uc.x, uc.y, uc.width, uc.height], expected) { XCTAssertEqual(ours, theirs, accuracy: 1e-5) }
        }
    }

    /// His `classifier predict` on AlexeyAB-dialect classifiers: the photo's shorter side
    /// scaled to the width and the centre cropped (not letterboxed), his top 5 in his order,
    /// and every score within 1e-6; with a class tree, every class's path probability (his
    /// `hierarchy_predictions` with `only_leaves = 0`).
    func testClassifierIsAlexeyABs() throws {
        struct ClassifyGolden: Decodable {
            struct Classify: Decodable {
                struct Top: Decodable { var index: Int; var score: Float }
                var resized_w: Int
                var resized_h: Int
                var top: [Top]
                var scores: [Float]
            }
            var seed: UInt64
            var weights_fnv1a64: String
            var classify: Classify
        }
        for name in ["classifier", "tree-classifier"] {
            let golden = try JSONDecoder().decode(ClassifyGolden.self, from: Data(contentsOf: TestData.fixture("alexeyab/\(name).json")))
            let model = try ModelDescription(contentsOf: Self.path(name) + ".cfg")
            let weights = SyntheticWeights.bytes(for: model, seed: golden.seed)
            XCTAssertEqual(String(format: "%016llx", SyntheticWeights.fnv1a64(weights)), golden.weights_fnv1a64, name)
            let classifier = try weights.withUnsafeBytes { try Classifier(PreparedModel(model: model, weightsBytes: $0)) }
            XCTAssertTrue(classifier.fitting.hasPrefix("shorter side to the width, centre crop"), classifier.fitting)
            XCTAssertEqual(model.hierarchy != nil, name == "tree-classifier")
            let image = try Image(contentsOf: TestData.fixture("alexeyab/scene-120x80.png").path)
            XCTAssertEqual([golden.classify.resized_w, golden.classify.resized_h], [48, 32], "120×80 with its shorter side at 32")
            let top = try classifier.classify(image, top: 5)
            XCTAssertEqual(top.map(\.index), golden.classify.top.map(\.index), name)
            let scores = try classifier.scores(for: image)
            XCTAssertEqual(scores.count, golden.classify.scores.count)
            for (ours, theirs) in zip(scores, golden.classify.scores) { XCTAssertEqual(ours, theirs, accuracy: 1e-6, name) }
        }
    }

    func testEveryLayerIsAlexeyABs() throws {
        for name in Self.models {
            let (golden, cfg, weights) = try load(name)
            let model = try ModelDescription(text: cfg, file: Self.path(name) + ".cfg")
            let prepared = try weights.withUnsafeBytes { try PreparedModel(model: model, weightsBytes: $0, file: name) }
            let network = try Network(prepared)
            XCTAssertEqual(golden.layers.count, model.layers.count, name)
            var worst = (error: 0.0, layer: -1)
            _ = try network.forward(SyntheticWeights.input(model.inputShape)) { layer, values in
                let expected = golden.layers[layer.index]
                XCTAssertEqual(expected.count, values.count, "\(name) layer \(layer.index) (\(expected.type))")
                guard expected.count == values.count else { return }
                for sample in expected.samples {
                    let (index, reference) = (Int(sample[0]), sample[1])
                    // His [region] leaves x and y raw (get_region_box takes their logistic).
                    if case .region(let region) = layer.kind {
                        let entry = (index / (layer.output.height * layer.output.width)) % (region.head.classes + 5)
                        if entry < 2 { continue }
                    }
                    let error = abs(Double(values[index]) - reference) / (1 + abs(reference))
                    if error > worst.error { worst = (error, layer.index) }
                }

            }
            XCTAssertLessThanOrEqual(worst.error, 1e-4, "\(name): worst relative error at layer \(worst.layer)")
        }
    }

    /// OpenCV DNN 4.x where it reads the cfg (`tools/oracle/opencv_oracle.py layers`): every
    /// layer but the heads, on the synthetic input with the synthetic weights, within
    /// 1e-4·(1 + |value|). Of these fixtures it reads the scaled-YOLOv4 shape and the
    /// classifier (it refuses [contrastive], [Gaussian_yolo], [implicit] and [crnn], and runs
    /// `xnor=1`, `share_index` and `tree=` as plain layers, so those fixtures are not its).
    /// With `DARKNET_SWIFT_OPENCV_LAYERS` naming a folder of NAME.cfg, NAME.weights and
    /// NAME-opencv.json (AlexeyAB's real cfgs, made locally), those are checked too, within
    /// 1e-3·(1 + |value|) (up to 160 layers of float rounding).
    func testEveryLayerIsOpenCVsWhereItReadsTheCfg() throws {
        for name in ["csp", "classifier"] {
            let model = try ModelDescription(contentsOf: Self.path(name) + ".cfg")
            let bytes = SyntheticWeights.bytes(for: model, seed: 1)
            let prepared = try bytes.withUnsafeBytes { try PreparedModel(model: model, weightsBytes: $0, file: name) }
            try assertOpenCVLayers(prepared, golden: TestData.fixture("alexeyab/\(name)-opencv.json"), tolerance: 1e-4, name)
        }
        guard let folder = ProcessInfo.processInfo.environment["DARKNET_SWIFT_OPENCV_LAYERS"] else { return }
        let goldens = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix("-opencv.json") }.sorted()
        XCTAssertFalse(goldens.isEmpty, "no NAME-opencv.json in \(folder)")
        for golden in goldens {
            let name = String(golden.dropLast("-opencv.json".count))
            let base = URL(fileURLWithPath: folder).appendingPathComponent(name).path
            let prepared = try PreparedModel(model: ModelDescription(contentsOf: base + ".cfg"), weightsFile: base + ".weights")
            try assertOpenCVLayers(prepared, golden: URL(fileURLWithPath: folder).appendingPathComponent(golden),
                                   tolerance: 1e-3, name)
        }
    }

    private func assertOpenCVLayers(_ prepared: PreparedModel, golden url: URL, tolerance: Double, _ name: String) throws {
        struct Golden: Decodable {
            struct Layer: Decodable { var index: Int; var opencv: String; var count: Int; var samples: [[Double]] }
            var reference: String
            var layers: [Layer]
        }
        let golden = try JSONDecoder().decode(Golden.self, from: Data(contentsOf: url))
        XCTAssertTrue(golden.reference.hasPrefix("OpenCV DNN 4."), golden.reference)
        let expected = Dictionary(uniqueKeysWithValues: golden.layers.map { ($0.index, $0) })
        var (worst, compared) = ((error: 0.0, layer: -1), 0)
        _ = try Network(prepared).forward(SyntheticWeights.input(prepared.model.inputShape)) { layer, values in
            guard let theirs = expected[layer.index] else { return }
            compared += 1
            XCTAssertEqual(values.count, theirs.count, "\(name) layer \(layer.index) (\(theirs.opencv))")
            guard values.count == theirs.count else { return }
            for sample in theirs.samples {
                let error = abs(Double(values[Int(sample[0])]) - sample[1]) / (1 + abs(sample[1]))
                if error > worst.error { worst = (error, layer.index) }
            }
        }
        XCTAssertEqual(compared, golden.layers.count, name)
        XCTAssertLessThanOrEqual(worst.error, tolerance, "\(name): worst relative difference from OpenCV at layer \(worst.layer)")
        print("\(name): \(compared) layers against OpenCV, worst relative difference \(worst.error) at layer \(worst.layer)")
    }
}
