@testable import Darknet
import TestSupport
import XCTest

final class NamedOutputsTests: XCTestCase {
    func testYoloOutputsByName() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3-tiny"), width: 96, height: 96)
        let weights = try SyntheticWeights.bytes(for: model, seed: 3).withUnsafeBytes {
            try WeightsReader.read($0, file: "synthetic", for: model)
        }
        let network = try Network(model: model, weights: weights)
        XCTAssertEqual(network.outputNames, ["yolo_16", "yolo_23"])
        let outputs = try network.forwardNamed(SyntheticWeights.input(model.inputShape))
        XCTAssertEqual(outputs["yolo_16"]?.shape, TensorShape(channels: 255, height: 3, width: 3))
        XCTAssertEqual(outputs["yolo_23"]?.shape, TensorShape(channels: 255, height: 6, width: 6))
    }

    func testLastLayerWithoutYolo() throws {
        let model = try ModelDescription(text: "[net]\nwidth=4\nheight=4\nchannels=1\n[maxpool]\nsize=2\nstride=2\n")
        let network = try Network(model: model, weights: ModelWeights())
        XCTAssertEqual(network.outputNames, ["maxpool_0"])
    }
}
