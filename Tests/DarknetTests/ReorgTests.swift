@testable import Darknet
import XCTest

/// `[reorg]` shapes, darknet's `reorg_cpu` index mapping on a case worked by hand, and its
/// errors. The full networks are checked against libdarknet in RegionGoldenTests.
final class ReorgTests: XCTestCase {
    func testShapes() throws {
        let reorg = Reorg(stride: 2, reverse: false)
        XCTAssertEqual(reorg.outputShape(input: TensorShape(channels: 64, height: 26, width: 26)),
                       TensorShape(channels: 256, height: 13, width: 13), "yolov2's passthrough")
        XCTAssertNil(reorg.outputShape(input: TensorShape(channels: 64, height: 25, width: 26)), "odd height")
        XCTAssertNil(reorg.outputShape(input: TensorShape(channels: 6, height: 26, width: 26)), "channels not a multiple of 4")
        XCTAssertEqual(Reorg(stride: 2, reverse: true).outputShape(input: TensorShape(channels: 8, height: 3, width: 5)),
                       TensorShape(channels: 2, height: 6, width: 10))
    }

    /// Input 4×2×2 holding 0…15, stride 2: darknet reads the 16 floats as a 1×4×4 grid X and
    /// writes output channel k, row j, column i = X[2j + k/2][2i + k mod 2].
    func testForwardIsDarknetsReorgCpu() {
        let shape = TensorShape(channels: 4, height: 2, width: 2)
        let input = (0..<16).map(Float.init)
        var output = [Float](repeating: -1, count: 16)
        Reorg(stride: 2, reverse: false).forward(input: input, inputShape: shape, output: &output)
        XCTAssertEqual(output, [0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15])
        // reverse=1 moves the floats back (reorg_cpu with forward = 1 on the same dimensions).
        var back = [Float](repeating: -1, count: 16)
        Reorg(stride: 2, reverse: true).forward(input: output, inputShape: shape, output: &back)
        XCTAssertEqual(back, input)
    }

    func testErrors() throws {
        func error(_ body: String) -> CfgError? {
            do {
                _ = try ModelDescription(text: "[net]\nwidth=8\nheight=8\nchannels=4\n" + body)
                return nil
            } catch {
                return error as? CfgError
            }
        }
        guard case .shapeMismatch(let location, _, _)? = error("[reorg]\nstride=3\n") else { return XCTFail("stride 3 on 8×8×4") }
        XCTAssertEqual(location.key, "stride")
        guard case .unsupported(let flatten, _)? = error("[reorg]\nstride=2\nflatten=1\n") else { return XCTFail("flatten") }
        XCTAssertEqual(flatten.key, "flatten")
        guard case .invalidValue? = error("[reorg]\nstride=0\n") else { return XCTFail("stride 0") }
        XCTAssertNil(error("[reorg]\nstride=2\n"))
    }
}
