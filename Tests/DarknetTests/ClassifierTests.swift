@testable import Darknet
import Foundation
import Imaging
import XCTest

final class ClassifierTests: XCTestCase {
    /// darknet's `top_k` keeps the first index among equal scores (strict `>`), highest first.
    func testTopKeepsTheLowerIndexOnTies() {
        let top = Classifier.top(3, of: [0.1, 0.5, 0.2, 0.5, .nan], labels: ["a", "b", "c", "d", "e"])
        XCTAssertEqual(top.map(\.index), [1, 3, 2])
        XCTAssertEqual(top.map(\.label), ["b", "d", "c"])
        XCTAssertEqual(top[0].classification.identifier, "b")
        XCTAssertEqual(Classifier.top(9, of: [1, 2], labels: []).map(\.label), ["1", "0"])
    }

    /// avgpool → connected (zero weights, biases 2, 1, 0) → softmax: every image gives
    /// softmax(2, 1, 0) = e²/(e²+e+1) …, whatever its pixels.
    func testClassifyRunsTheNetworkOnTheLetterboxedImage() throws {
        let model = try ModelDescription(text: "[net]\nwidth=8\nheight=8\nchannels=3\n[avgpool]\n[connected]\noutput=3\nactivation=linear\n[softmax]\n")
        let parameters = ModelWeights([1: .connected(ConnectedWeights(weights: [Float](repeating: 0, count: 9), biases: [2, 1, 0]))])
        let classifier = try Classifier(model: model, weights: parameters, labels: ["cat", "dog", "bird"])
        let image = Image(width: 5, height: 3, channels: 3, data: [Float](repeating: 0.3, count: 45))
        let prepared = classifier.prepare(image)
        XCTAssertEqual([prepared.width, prepared.height, prepared.channels], [8, 8, 3])
        let top = try classifier.classify(image, top: 2)
        let e = exp(1.0), sum = e * e + e + 1
        XCTAssertEqual(top.map(\.label), ["cat", "dog"])
        XCTAssertEqual(Double(top[0].confidence), e * e / sum, accuracy: 1e-6)
        XCTAssertEqual(Double(top[1].confidence), e / sum, accuracy: 1e-6)
    }

    func testLabelCountMustMatchTheOutputs() throws {
        let model = try ModelDescription(text: "[net]\nwidth=1\nheight=1\nchannels=2\n[softmax]\n")
        XCTAssertThrowsError(try Classifier(model: model, weights: ModelWeights(), labels: ["only one"])) { error in
            XCTAssertEqual(error as? Classifier.Error, .labelCount(labels: 1, outputs: 2))
        }
    }
}
