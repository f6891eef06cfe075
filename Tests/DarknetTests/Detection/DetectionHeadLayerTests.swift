@testable import Darknet
import Foundation
import TestSupport
import XCTest
import YOLO

/// The detection heads answer through `DetectionHeadLayer` (found by `LayerType.detectionHead`):
/// each head's classes, NMS and its reason, input fitting, class tree and box correction rule,
/// and a network of mixed heads, whose decoding must hand each output to its own head's decoder.
final class DetectionHeadLayerTests: XCTestCase {
    /// `[net]` 8×8×4, a 1×1 convolution of `filters`, then `head` (layer 1, its section on line 8).
    private func model(filters: Int, _ head: String) throws -> ModelDescription {
        try ModelDescription(text: "[net]\nwidth=8\nheight=8\nchannels=4\n[convolutional]\nfilters=\(filters)\nsize=1\n\(head)")
    }

    /// Layer 1 of `model` is a head answering `classes`, the NMS `nms` for `reason` (its place:
    /// layer 1, line 8), its own `fitting`, no class tree, and `1/ratio` boxes in the dialects
    /// `reciprocal` says ([pjreddie, AlexeyAB]); layer 0, a convolution, is no head.
    private func assertHead(_ model: ModelDescription, classes: Int, nms: NMSKind, reason: String, fitting: InputFitting? = nil,
                            reciprocal: [Bool], line: UInt = #line) throws {
        XCTAssertFalse(model.layers[0].isDetectionHead, line: line)
        XCTAssertNil(model.layers[0].detectionHead, line: line)
        XCTAssertTrue(model.layers[1].isDetectionHead, line: line)
        let head = try XCTUnwrap(model.layers[1].detectionHead, line: line)
        XCTAssertEqual(head.classes, classes, line: line)
        XCTAssertEqual(model.nmsKind.kind, nms, line: line)
        XCTAssertEqual(model.nmsKind.reason, reason, line: line)
        XCTAssertEqual(head.inputFitting, fitting, line: line)
        XCTAssertNil(head.classTree, line: line)
        XCTAssertNil(model.layers[1].headClassTree, line: line)
        XCTAssertEqual([head.correctsByReciprocalRatio(in: .pjreddie), head.correctsByReciprocalRatio(in: .alexeyAB)], reciprocal,
                       line: line)
    }

    func testYoloHead() throws {
        try assertHead(model(filters: 12, "[yolo]\nmask=0,1\nanchors=1,2,3,4\nclasses=1\nnum=2\nnms_kind=diounms\nbeta_nms=0.7\n"),
                       classes: 1, nms: .diou(beta: 0.7), reason: "nms_kind of the last [yolo] (layer 1, line 8)",
                       reciprocal: [false, true])
    }

    func testGaussianYoloHead() throws {
        try assertHead(model(filters: 20, "[Gaussian_yolo]\nmask=0\nanchors=1,2\nclasses=11\nnum=1\nnms_kind=cornersnms\n"),
                       classes: 11, nms: .corners, reason: "nms_kind of the last [Gaussian_yolo] (layer 1, line 8)",
                       reciprocal: [false, false])
    }

    func testRegionHead() throws {
        let model = try model(filters: 14, "[region]\nclasses=2\nnum=2\n")
        try assertHead(model, classes: 2, nms: .default,
                       reason: "the last head is a [region] (layer 1, line 8), which has no nms_kind", reciprocal: [false, true])
        XCTAssertEqual(model.inputFitting.mapping, .letterbox, "a pjreddie cfg, fitted by its dialect")
    }

    func testRegionWithAClassTreeGivesIt() throws {
        let model = try ModelDescription(contentsOf: try TestData.fixture("zoo6-tree.cfg").path)
        let last = try XCTUnwrap(model.layers.last)
        let tree = try XCTUnwrap(last.headClassTree)
        XCTAssertEqual([tree.count, tree.groupSizes.count], [14, 7])
        XCTAssertEqual(last.detectionHead?.classTree, tree)
        XCTAssertEqual(model.layers.dropLast().compactMap(\.headClassTree).count, 0)
    }

    func testDetectionHeadIsResizedWhateverTheDialect() throws {
        let model = try model(filters: 6, "[detection]\nside=4\nnum=1\nclasses=19\ncoords=4\n")
        let fitting = InputFitting(mapping: .stretch, reason: "a YOLOv1 [detection] head: darknet yolo test resizes")
        try assertHead(model, classes: 19, nms: .default,
                       reason: "the last head is a [detection] (layer 1, line 8), which has no nms_kind", fitting: fitting,
                       reciprocal: [false, false])
        XCTAssertEqual(model.inputFitting, fitting)
        // `[net] letter_box` still decides over the head.
        let boxed = try ModelDescription(text: "[net]\nwidth=8\nheight=8\nchannels=4\nletter_box=1\n[convolutional]\nfilters=6\nsize=1\n[detection]\nside=4\nnum=1\nclasses=19\ncoords=4\n")
        XCTAssertEqual(boxed.inputFitting.mapping, .letterbox)
    }

    func testNoHead() throws {
        let model = try ModelDescription(text: "[net]\nwidth=8\nheight=8\nchannels=4\n[convolutional]\nfilters=6\nsize=1\n[softmax]\n")
        XCTAssertTrue(model.layers.allSatisfy { $0.detectionHead == nil && !$0.isDetectionHead })
        XCTAssertEqual(model.nmsKind.kind, .default)
        XCTAssertEqual(model.nmsKind.reason, "no detection head")
    }

    /// `[region]` (2 classes), `[yolo]` (1 class), `[detection]` (3 classes), each after its
    /// own convolution: the classes are the first head's, the NMS the last head's, the fitting
    /// the one head that has its own; each output goes to its own head's decoder, in layer order.
    func testMixedHeads() throws {
        let cfg = """
            [net]
            width=8
            height=8
            channels=4
            [convolutional]
            filters=7
            size=1
            [region]
            classes=2
            num=1
            [convolutional]
            filters=12
            size=1
            [yolo]
            mask=0,1
            anchors=1,2,3,4
            classes=1
            num=2
            [convolutional]
            filters=8
            size=1
            [detection]
            side=8
            num=1
            classes=3
            coords=4

            """
        let model = try ModelDescription(text: cfg)
        XCTAssertEqual(model.layers.map(\.isDetectionHead), [false, true, false, true, false, true])
        XCTAssertEqual(model.nmsKind.reason, "the last head is a [detection] (layer 5, line 22), which has no nms_kind")
        XCTAssertEqual(model.inputFitting.mapping, .stretch)

        let bytes = SyntheticWeights.bytes(for: model, seed: 3)
        func weights() throws -> ModelWeights { try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) } }
        let threshold: Float = 0.2
        let detector = try Detector(model: model, weights: try weights(), options: DetectorOptions(threshold: threshold))
        XCTAssertEqual(detector.classCount, 2)
        let outputs = try Network(model: model, weights: try weights()).forward(SyntheticWeights.input(model.inputShape))
        XCTAssertEqual(outputs.map(\.layer), [1, 3, 5])

        guard case .region(let region) = model.layers[1].kind, case .yolo(let yolo) = model.layers[3].kind,
              case .detection(let detection) = model.layers[5].kind else { return XCTFail("not the three heads") }
        let regionCandidates = try YOLODecoder.decode(outputs[0].values, tensor: .nchw(channels: 7, height: 8, width: 8),
                                                      head: .region(region.head), networkWidth: 8, networkHeight: 8,
                                                      threshold: threshold, options: DecodeOptions(keepsEveryRegionSlot: true))
        let yoloCandidates = try outputs[1].values.withUnsafeBufferPointer {
            try YOLODecoder.decode($0, gridWidth: 8, gridHeight: 8, head: yolo.head, networkWidth: 8, networkHeight: 8, threshold: threshold)
        }
        let detectionCandidates = try outputs[2].values.withUnsafeBufferPointer {
            try YOLOv1Decoder.decode($0, head: detection.head, threshold: threshold)
        }
        XCTAssertFalse(regionCandidates.isEmpty || yoloCandidates.isEmpty || detectionCandidates.isEmpty)
        // Resized (the `[detection]` head's fitting): the correction leaves every box as decoded.
        let decoded = try detector.decode(outputs, imageWidth: 40, imageHeight: 30)
        XCTAssertEqual(decoded, regionCandidates + yoloCandidates + detectionCandidates)
    }
}
