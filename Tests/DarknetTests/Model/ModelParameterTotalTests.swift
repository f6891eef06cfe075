import Darknet
import XCTest

/// Issue #53 item 11: a model's parameters are bounded in total, not only per layer: two
/// `[connected]` layers each under the per-layer limit asked for one 4.3 GB allocation.
final class ModelParameterTotalTests: XCTestCase {
    static let cfg = """
    [net]
    width=256
    height=256
    channels=3
    [connected]
    output=5000
    activation=linear
    [connected]
    output=20000
    activation=linear
    """

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
