@testable import Darknet
import Foundation
import TestSupport
import XCTest

/// `Activation` against two references, on the same input grid (−8…8 by 0.25 plus large values):
/// - pjreddie's 14 activations: Debian's `libdarknet.so` `activate_array`
///   (Fixtures/activations-darknet.json, `tools/oracle/activation_oracle.py`);
/// - AlexeyAB's mish and swish (and the common ones): OpenCV DNN 4.x's Darknet importer
///   (Fixtures/activations-opencv.json, `tools/oracle/opencv_oracle.py activations`);
/// - AlexeyAB's own: his darknet built from source, the calls his convolution forward makes
///   (Fixtures/activations-alexeyab.json, `tools/oracle/ab_activation_oracle.py`);
/// - relu6, gelu, hard_mish (which OpenCV's importer does not read): AlexeyAB's
///   `activations.c` formulas, hand-computed cases stated below.
final class ActivationGoldenTests: XCTestCase {
    struct Golden: Decodable {
        var reference: String
        var inputs: [Float]
        var outputs: [String: [Float?]]
    }

    /// Worst |ours − reference| / (1 + |reference|) over the grid.
    private func worst(_ activation: Activation, _ expected: [Float?], _ inputs: [Float]) -> Float {
        var worst: Float = 0
        for (x, reference) in zip(inputs, expected) {
            guard let reference else { continue }  // darknet's tanh is NaN for x > 44 (exp overflow); we return 1
            worst = max(worst, Tolerance.relative(activation.value(x), reference))
        }
        return worst
    }

    /// Reference: libdarknet.so. Tolerance 1e-6 relative: both compute in double then round
    /// (darknet's tanh via exp(2x) differs from Foundation.tanh by an ulp).
    func testPjreddieActivationsMatchLibdarknet() throws {
        let golden = try JSONDecoder().decode(Golden.self, from: Data(contentsOf: TestData.fixture("activations-darknet.json")))
        XCTAssertEqual(golden.outputs.count, 14)
        for (name, expected) in golden.outputs {
            guard let activation = Activation(rawValue: name) else { XCTFail("no activation \(name)"); continue }
            XCTAssertLessThanOrEqual(worst(activation, expected, golden.inputs), 1e-6, name)
        }
    }

    /// Reference: OpenCV DNN 4.x. Tolerance 2e-6 relative (OpenCV computes mish as
    /// x·tanh(log1p(exp(x))) in float with its own threshold; swish as x·sigmoid(x)).
    func testAlexeyABActivationsMatchOpenCV() throws {
        let golden = try JSONDecoder().decode(Golden.self, from: Data(contentsOf: TestData.fixture("activations-opencv.json")))
        for name in ["mish", "swish", "logistic", "leaky", "relu", "linear"] {
            guard let expected = golden.outputs[name], let activation = Activation(rawValue: name) else {
                XCTFail("golden lacks \(name)"); continue
            }
            XCTAssertLessThanOrEqual(worst(activation, expected, golden.inputs), 2e-6, name)
        }
    }

    /// Reference: AlexeyAB's darknet (built from source with plain IEEE float operations): mish,
    /// swish and hard_mish bit for bit (the same Float formulas on glibc's expf and logf), leaky
    /// bit for bit (his convolution's `.1` is a double, as pjreddie's), gelu within 1e-6, and his
    /// Float logistic (what `logistic` is in his dialect) bit for bit, where pjreddie's double
    /// formula differs in the last bit.
    func testAlexeyABActivationsMatchAlexeyABsDarknet() throws {
        let golden = try JSONDecoder().decode(Golden.self, from: Data(contentsOf: TestData.fixture("activations-alexeyab.json")))
        XCTAssertTrue(golden.reference.hasPrefix("AlexeyAB darknet "), golden.reference)
        for (name, tolerance) in [("mish", Float(0)), ("swish", 0), ("hard_mish", 0), ("leaky", 0), ("gelu", 1e-6), ("linear", 0)] {
            guard let expected = golden.outputs[name], let activation = Activation(rawValue: name) else {
                XCTFail("golden lacks \(name)"); continue
            }
            XCTAssertLessThanOrEqual(worst(activation, expected, golden.inputs), tolerance, name)
        }
        guard let logistic = golden.outputs["logistic"] else { return XCTFail("golden lacks logistic") }
        let dialect = CfgDialect.alexeyAB.activation(.logistic)
        XCTAssertEqual(dialect, .alexeyABLogistic)
        XCTAssertEqual(worst(dialect, logistic, golden.inputs), 0)
        let pjreddies = zip(golden.inputs, logistic).filter { x, y in Activation.logistic.value(x) != y }
        XCTAssertFalse(pjreddies.isEmpty, "the grid holds inputs where the two formulas differ")
    }

    /// Reference: AlexeyAB's activations.c formulas, values computed by hand.
    func testAlexeyABFormulasOpenCVDoesNotRead() {
        // relu6: min(max(x, 0), 6)
        XCTAssertEqual(Activation.relu6.value(-1), 0)
        XCTAssertEqual(Activation.relu6.value(3.5), 3.5)
        XCTAssertEqual(Activation.relu6.value(7), 6)
        // hard_mish: x > 0 → x; −2 < x ≤ 0 → x²/2 + x; else 0.
        XCTAssertEqual(Activation.hardMish.value(1.5), 1.5)
        XCTAssertEqual(Activation.hardMish.value(-1), -0.5)   // 0.5 − 1
        XCTAssertEqual(Activation.hardMish.value(-0.5), -0.375) // 0.125 − 0.5
        XCTAssertEqual(Activation.hardMish.value(-3), 0)
        // gelu: 0.5·x·(1 + tanh(0.797885·x + 0.035677·x³)); at x = 1: tanh(0.833562) = 0.682384 → 0.841192
        XCTAssertEqual(Activation.gelu.value(1), 0.841192, accuracy: 2e-6)
        XCTAssertEqual(Activation.gelu.value(0), 0)
        // gelu(−1) = −1 + gelu(1) (odd tanh): −0.158808
        XCTAssertEqual(Activation.gelu.value(-1), -0.158808, accuracy: 2e-6)
        // mish's softplus threshold 20: above it softplus(x) = x, so mish(30) = 30·tanh(30) = 30.
        XCTAssertEqual(Activation.mish.value(30), 30)
        XCTAssertEqual(Activation(rawValue: "hard_mish"), .hardMish, "cfg name is darknet's")
    }
}
