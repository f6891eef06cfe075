@testable import Darknet
import Foundation
import TestSupport
import XCTest
import YOLO

/// A project-written yolov4-tiny-shaped network (Fixtures/zoo2-v4tiny.cfg: route groups/group_id, sam, scale_channels,
/// scale_x_y 1.05 and 1.1, mish, swish, two heads) end to end against OpenCV DNN 4.x
/// (Fixtures/zoo2-v4tiny-opencv.json, `tools/oracle/opencv_oracle.py network`), which
/// implements these AlexeyAB options and pjreddie's darknet does not.
///
/// OpenCV gives each `[yolo]` as rows `(cell · anchors + n)` of `[x, y, w, h, objectness,
/// objectness · class…]` (x, y normalised, w, h = e^t · anchor / net size). We rebuild that
/// from our `[yolo]` output. Tolerance 1e-4 absolute (values are O(1); OpenCV sums in another
/// order and computes BN unfolded).
final class ZooGoldenTests: XCTestCase {
    struct Golden: Decodable {
        struct Output: Decodable {
            var name: String
            var shape: [Int]
            var step: Int
            var samples: [Double]
        }
        var reference: String
        var outputs: [Output]
    }

    /// The 'zoo' fixture weights of `opencv_oracle.py fixture_weights` (seed 1): per convolution,
    /// biases U(−0.1, 0.1); with batch norm scales U(0.8, 1.2), means U(−0.1, 0.1), variances
    /// U(0.5, 1.5); then weights U(−s, s) with s = Float(√(3 / fanIn)).
    static func fixtureWeights(for model: ModelDescription, seed: UInt64 = 1) -> [UInt8] {
        var generator = SplitMix64(state: seed)
        var out: [UInt8] = []
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        func uniform(_ count: Int, _ lo: Float, _ hi: Float) {
            for _ in 0..<count { append(generator.uniform(lo, hi).bitPattern) }
        }
        append(Int32(0)); append(Int32(2)); append(Int32(0)); append(UInt64(0))
        for layer in model.layers {
            guard case .convolutional(let conv) = layer.kind else { continue }
            uniform(conv.filters, -0.1, 0.1)
            if conv.batchNormalize {
                uniform(conv.filters, 0.8, 1.2); uniform(conv.filters, -0.1, 0.1); uniform(conv.filters, 0.5, 1.5)
            }
            let fanIn = conv.fanIn(inputChannels: layer.input.channels)
            let s = Float((3.0 / Double(fanIn)).squareRoot())
            uniform(conv.filters * fanIn, -s, s)
        }
        return out
    }

    func testYolov4TinyShapedNetworkMatchesOpenCV() throws {
        let golden = try JSONDecoder().decode(Golden.self, from: Data(contentsOf: TestData.fixture("zoo2-v4tiny-opencv.json")))
        XCTAssertTrue(golden.reference.hasPrefix("OpenCV DNN 4."))
        let model = try ModelDescription(contentsOf: try TestData.fixture("zoo2-v4tiny.cfg").path)
        let bytes = Self.fixtureWeights(for: model)
        let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "fixture", for: model) }
        let network = try Network(model: model, weights: weights)
        let outputs = try network.forward(SyntheticWeights.input(model.inputShape))
        XCTAssertEqual(outputs.count, golden.outputs.count)
        var worst = 0.0
        for (ours, theirs) in zip(outputs, golden.outputs) {
            guard case .yolo(let yolo) = model.layers[ours.layer].kind else { return XCTFail("layer \(ours.layer) is not [yolo]") }
            let rows = opencvRows(ours, yolo: yolo, netWidth: model.inputShape.width, netHeight: model.inputShape.height)
            XCTAssertEqual([rows.count / (yolo.head.classes + 5), yolo.head.classes + 5], theirs.shape, theirs.name)
            for (k, expected) in theirs.samples.enumerated() {
                let index = k * theirs.step
                guard index < rows.count else { return XCTFail("sample \(k) outside \(theirs.name)") }
                let column = index % (yolo.head.classes + 5)
                // OpenCV zeroes class scores ≤ its 0.2 threshold; compare those only when it kept them.
                if column >= 5 && expected == 0 { continue }
                let error = abs(Double(rows[index]) - expected)
                worst = max(worst, error)
                XCTAssertLessThanOrEqual(error, 1e-4, "\(theirs.name) row \(index / (yolo.head.classes + 5)) column \(column)")
            }
        }
        print("zoo2-v4tiny vs OpenCV: worst |difference| \(worst)")
    }

    /// AlexeyAB's `new_coords=1` heads (scaled-YOLOv4: the convolution before `[yolo]` applies the
    /// logistic, the layer applies none, `w = tw·tw·4·anchor / net`), with `scale_x_y=2`, end
    /// to end against OpenCV DNN 4.x (Fixtures/zoo5-newcoords-opencv.json from
    /// `tools/oracle/opencv_oracle.py network Tests/DarknetTests/Fixtures/zoo5-newcoords.cfg`),
    /// and the detector's boxes use the same formula.
    func testNewCoordsHeadsMatchOpenCV() throws {
        let golden = try JSONDecoder().decode(Golden.self, from: Data(contentsOf: TestData.fixture("zoo5-newcoords-opencv.json")))
        XCTAssertTrue(golden.reference.hasPrefix("OpenCV DNN 4."))
        let model = try ModelDescription(contentsOf: try TestData.fixture("zoo5-newcoords.cfg").path)
        let bytes = Self.fixtureWeights(for: model)
        let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "fixture", for: model) }
        let outputs = try Network(model: model, weights: weights).forward(SyntheticWeights.input(model.inputShape))
        XCTAssertEqual(outputs.count, 2)
        var worst = 0.0
        for (ours, theirs) in zip(outputs, golden.outputs) {
            guard case .yolo(let yolo) = model.layers[ours.layer].kind else { return XCTFail("layer \(ours.layer) is not [yolo]") }
            XCTAssertTrue(yolo.head.newCoords)
            let rows = opencvRows(ours, yolo: yolo, netWidth: model.inputShape.width, netHeight: model.inputShape.height)
            XCTAssertEqual([rows.count / (yolo.head.classes + 5), yolo.head.classes + 5], theirs.shape, theirs.name)
            for (k, expected) in theirs.samples.enumerated() {
                let index = k * theirs.step
                let column = index % (yolo.head.classes + 5)
                if column >= 5 && expected == 0 { continue }
                let error = abs(Double(rows[index]) - expected)
                worst = max(worst, error)
                XCTAssertLessThanOrEqual(error, 1e-4, "\(theirs.name) row \(index / (yolo.head.classes + 5)) column \(column)")
            }
            // The decoder's boxes (what `Detector` reports) are OpenCV's rows too.
            let candidates = try YOLODecoder.decode(ours.values, gridWidth: ours.shape.width, gridHeight: ours.shape.height,
                                                    head: yolo.head, networkWidth: model.inputShape.width,
                                                    networkHeight: model.inputShape.height, threshold: 0)
            XCTAssertEqual(candidates.count, rows.count / (yolo.head.classes + 5))
            for (i, candidate) in candidates.enumerated() {
                let row = i * (yolo.head.classes + 5)
                XCTAssertEqual(candidate.box.width, rows[row + 2], accuracy: 1e-6)
                XCTAssertEqual(candidate.box.height, rows[row + 3], accuracy: 1e-6)
            }
        }
        print("zoo5-newcoords vs OpenCV: worst |difference| \(worst)")
    }

    /// Our `[yolo]` output (anchor-major planes) as OpenCV's rows.
    private func opencvRows(_ output: Network.LayerOutput, yolo: Yolo, netWidth: Int, netHeight: Int) -> [Float] {
        let (h, w) = (output.shape.height, output.shape.width)
        let entries = yolo.head.classes + 5
        let anchors = yolo.head.mask.count
        let plane = h * w
        var rows = [Float](repeating: 0, count: plane * anchors * entries)
        for cell in 0..<plane {
            for n in 0..<anchors {
                let value = { (entry: Int) in output.values[(n * entries + entry) * plane + cell] }
                let row = (cell * anchors + n) * entries
                let anchor = yolo.head.mask[n]
                rows[row] = (Float(cell % w) + value(0)) / Float(w)
                rows[row + 1] = (Float(cell / w) + value(1)) / Float(h)
                if yolo.head.newCoords {
                    rows[row + 2] = value(2) * value(2) * 4 * yolo.head.anchors[2 * anchor] / Float(netWidth)
                    rows[row + 3] = value(3) * value(3) * 4 * yolo.head.anchors[2 * anchor + 1] / Float(netHeight)
                } else {
                    rows[row + 2] = exp(value(2)) * yolo.head.anchors[2 * anchor] / Float(netWidth)
                    rows[row + 3] = exp(value(3)) * yolo.head.anchors[2 * anchor + 1] / Float(netHeight)
                }
                rows[row + 4] = value(4)
                for c in 0..<yolo.head.classes { rows[row + 5 + c] = value(4) * value(5 + c) }
            }
        }
        return rows
    }
}
