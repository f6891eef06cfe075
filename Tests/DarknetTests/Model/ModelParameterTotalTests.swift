import Darknet
import XCTest

/// Issue #53 item 11: a model's parameters are bounded in total, not only per layer: two
/// `[connected]` layers each under the per-layer limit asked for one 4.3 GB allocation.
final class ModelParameterTotalTests: XCTestCase {
    /// 256·256·3·5000 + 5000·20000 = 1,083,040,000 weights, each layer under 2^31.
    static let cfg = "[net]\nwidth=256\nheight=256\nchannels=3\n[connected]\noutput=5000\nactivation=linear\n"
        + "[connected]\noutput=20000\nactivation=linear\n"

    func testTotalParametersAreBounded() throws {
        XCTAssertThrowsError(try ModelDescription(text: Self.cfg, file: "wide.cfg")) { error in
            let text = String(describing: error)
            XCTAssertTrue(text.contains("[connected] 'output': layer 1: the model's weights pass 1073741824 floats"), text)
            XCTAssertTrue(text.contains("ModelLimits.maximumModelParameters"), text)
        }
        var limits = ModelLimits()
        limits.maximumModelParameters = 1 << 31
        XCTAssertEqual(try ModelDescription(text: Self.cfg, file: "wide.cfg", limits: limits).layers.count, 2)
    }
}
