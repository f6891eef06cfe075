@testable import Darknet
import Foundation
import XCTest

/// `[avgpool]`, `[connected]`, `[softmax]`, `[dropout]`, `[batchnorm]`, `[cost]` on tiny
/// hand-made cfgs: expected values are worked out in each test from darknet's formulas
/// (whole networks are compared with libdarknet in ClassifierGoldenTests).
final class ClassifierLayersTests: XCTestCase {
    /// Header major/minor/revision + seen (uint64 when major·10+minor ≥ 2 and both < 1000, else uint32) + floats.
    func weightsFile(major: Int32 = 0, minor: Int32 = 2, _ floats: [Float]) -> [UInt8] {
        var bytes: [UInt8] = []
        for v in [major, minor, Int32(0)] { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
        if major * 10 + minor >= 2 && major < 1000 && minor < 1000 {
            withUnsafeBytes(of: UInt64(0)) { bytes += $0 }
        } else {
            withUnsafeBytes(of: UInt32(0)) { bytes += $0 }
        }
        for f in floats { withUnsafeBytes(of: f.bitPattern.littleEndian) { bytes += $0 } }
        return bytes
    }

    func run(_ cfg: String, _ weights: [UInt8], input: [Float]) throws -> (ModelDescription, [[Float]]) {
        let model = try ModelDescription(text: cfg)
        let parameters = try weights.withUnsafeBytes { try WeightsReader.read($0, file: "t.weights", for: model) }
        var outputs: [[Float]] = []
        try Network(model: model, weights: parameters).forward(input) { _, values in outputs.append(Array(values)) }
        return (model, outputs)
    }

    func testAvgpoolIsThePlaneMean() throws {
        let cfg = "[net]\nwidth=2\nheight=2\nchannels=2\n[avgpool]\n"
        let (model, outputs) = try run(cfg, weightsFile([]), input: [1, 2, 3, 4, -1, -1, 1, 5])
        XCTAssertEqual(model.layers[0].output, TensorShape(channels: 2, height: 1, width: 1))
        XCTAssertEqual(outputs[0], [2.5, 1])  // (1+2+3+4)/4, (−1−1+1+5)/4
    }

    /// 2 inputs → 3 outputs, linear: `out[o] = Σ W[o][i]·x[i] + b[o]` with W stored row by output.
    func testConnectedMultipliesByTheOutputsByInputsMatrix() throws {
        let cfg = "[net]\nwidth=1\nheight=1\nchannels=2\n[connected]\noutput=3\nactivation=linear\n"
        let floats: [Float] = [0.5, 0, -1,  1, 2,  3, 4,  -1, 0]  // biases, then rows W[0], W[1], W[2]
        let (model, outputs) = try run(cfg, weightsFile(floats), input: [10, 100])
        XCTAssertEqual(model.layers[0].output, TensorShape(channels: 3, height: 1, width: 1))
        XCTAssertEqual(outputs[0], [210.5, 430, -11])
    }

    /// parser.c: `transpose = (major > 1000) || (minor > 1000)`; the file then holds W as
    /// `inputs × outputs` (column by output) and `load_connected_weights` transposes it.
    func testConnectedWeightsAreTransposedWhenMajorOrMinorExceeds1000() throws {
        let cfg = "[net]\nwidth=1\nheight=1\nchannels=2\n[connected]\noutput=3\nactivation=linear\n"
        let transposed: [Float] = [0.5, 0, -1,  1, 3, -1,  2, 4, 0]  // same W as above, stored by input
        for (major, minor) in [(Int32(1001), Int32(0)), (0, 1001)] {
            let (_, outputs) = try run(cfg, weightsFile(major: major, minor: minor, transposed), input: [10, 100])
            XCTAssertEqual(outputs[0], [210.5, 430, -11], "major \(major) minor \(minor)")
        }
    }

    /// batch_normalize: biases, weights, then scales, rolling mean, rolling variance;
    /// `scale · (Wx − mean) / (sqrt(var) + .000001) + bias`.
    func testConnectedBatchNormReadsStatisticsAfterTheWeights() throws {
        let cfg = "[net]\nwidth=1\nheight=1\nchannels=1\n[connected]\noutput=1\nbatch_normalize=1\nactivation=linear\n"
        let (_, outputs) = try run(cfg, weightsFile([1, 3, 2, 5, 4]), input: [7])  // b=1 W=3 scale=2 mean=5 var=4
        XCTAssertEqual(outputs[0][0], 2 * (21 - 5) / (2 + 0.000001) + 1, accuracy: 1e-5)
    }

    func testConnectedDefaultsToLogistic() throws {
        let cfg = "[net]\nwidth=1\nheight=1\nchannels=1\n[connected]\n"
        let (_, outputs) = try run(cfg, weightsFile([0, 1]), input: [0])
        XCTAssertEqual(outputs[0], [0.5])
    }

    /// groups=2 splits 4 values into two softmaxes; temperature divides the inputs.
    func testSoftmaxGroupsAndTemperature() throws {
        let cfg = "[net]\nwidth=1\nheight=1\nchannels=4\n[softmax]\ngroups=2\ntemperature=2\n"
        let (_, outputs) = try run(cfg, weightsFile([]), input: [0, 2, 4, 4])
        let e = Float(M_E)
        XCTAssertEqual(outputs[0][0], 1 / (1 + e), accuracy: 1e-6)  // exp(0/2), exp(2/2)
        XCTAssertEqual(outputs[0][1], e / (1 + e), accuracy: 1e-6)
        XCTAssertEqual(outputs[0][2], 0.5, accuracy: 1e-6)
        XCTAssertEqual(outputs[0][3], 0.5, accuracy: 1e-6)
    }

    func testSoftmaxRejectsGroupsThatDoNotDivideAndMissingTrees() throws {
        let bad = "[net]\nwidth=1\nheight=1\nchannels=3\n[softmax]\ngroups=2\n"
        XCTAssertThrowsError(try ModelDescription(text: bad)) { error in
            XCTAssertTrue(String(describing: error).contains("<cfg>:6 [softmax] 'groups'"), String(describing: error))
        }
        let tree = "[net]\nwidth=1\nheight=1\nchannels=3\n[softmax]\ntree=data/9k.tree\n"
        XCTAssertThrowsError(try ModelDescription(text: tree)) { error in
            XCTAssertTrue(String(describing: error).contains("<cfg>:6 [softmax] 'tree': data/9k.tree: not found"), String(describing: error))
        }
    }

    func testDropoutAndCostPassTheirInputThrough() throws {
        let cfg = "[net]\nwidth=1\nheight=1\nchannels=3\n[dropout]\nprobability=.5\n[cost]\ntype=sse\n"
        let (model, outputs) = try run(cfg, weightsFile([]), input: [1, -2, 3])
        XCTAssertEqual(outputs, [[1, -2, 3], [1, -2, 3]])
        XCTAssertEqual(model.layers.map(\.typeName), ["dropout", "cost"])
        XCTAssertTrue(model.warnings.isEmpty)
    }

    /// Per channel `scale · (x − mean) / (sqrt(var) + .000001)`, no bias (darknet reads none).
    func testBatchnormNormalizesEachChannel() throws {
        let cfg = "[net]\nwidth=2\nheight=1\nchannels=2\n[batchnorm]\n"
        let floats: [Float] = [2, 1,  1, 0,  4, 1]  // scales, means, variances
        let (_, outputs) = try run(cfg, weightsFile(floats), input: [3, 5, 1, 2])
        let d0 = Float(2 + 0.000001), d1 = Float(1 + 0.000001)
        XCTAssertEqual(outputs[0][0], 2 * 2 / d0, accuracy: 1e-5)
        XCTAssertEqual(outputs[0][1], 2 * 4 / d0, accuracy: 1e-5)
        XCTAssertEqual(outputs[0][2], 1 / d1, accuracy: 1e-5)
        XCTAssertEqual(outputs[0][3], 2 / d1, accuracy: 1e-5)
    }

    func testShortConnectedWeightsNameTheLayerAndOffset() throws {
        let model = try ModelDescription(text: "[net]\nwidth=1\nheight=1\nchannels=2\n[connected]\noutput=3\n")
        let bytes = weightsFile([0, 0, 0, 1])  // 3 biases, then 1 of 6 weights
        XCTAssertThrowsError(try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "t.weights", for: model) }) { error in
            XCTAssertEqual(error as? WeightsError, .tooShort(file: "t.weights", layer: 0, part: "weights", offset: 32,
                                                            expectedSize: 20 + 36, actualSize: 36))
        }
    }
}
