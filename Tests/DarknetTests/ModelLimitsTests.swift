import XCTest
@testable import Darknet

final class ModelLimitsTests: XCTestCase {
    static let cfg = """
    [net]
    width=16
    height=16
    channels=3

    [convolutional]
    filters=70000
    size=1
    activation=linear
    """

    /// filters=70000 is over the default 65536 channels; raising the limit lets it load
    /// (70000 × 3 weights and 70000 × 16 × 16 outputs are within the other limits).
    func testChannelLimitIsReportedAtItsLineAndCanBeRaised() throws {
        XCTAssertThrowsError(try ModelDescription(text: Self.cfg, file: "wide.cfg")) { error in
            guard case CfgError.invalidValue(let location, "70000", _)? = error as? CfgError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(location.line, 7)
            XCTAssertEqual(location.key, "filters")
        }
        var limits = ModelLimits()
        limits.maximumChannels = 1 << 17
        XCTAssertEqual(try ModelDescription(text: Self.cfg, file: "wide.cfg", limits: limits).layers[0].output.channels, 70000)
    }

    /// 8 filters × 3 channels × 16384² taps = 6.4e9 weights > 2^31: refused naming the count.
    func testParameterLimitNamesTheWeightsNeeded() {
        let text = Self.cfg.replacingOccurrences(of: "filters=70000\nsize=1", with: "filters=8\nsize=16384\npad=1")
        XCTAssertThrowsError(try ModelDescription(text: text, file: "big.cfg")) { error in
            XCTAssertTrue("\(error)".contains("\(8 * 3 * 16384 * 16384) weights"), "\(error)")
            XCTAssertTrue("\(error)".hasPrefix("big.cfg:6"), "\(error)")
        }
    }
}
