@testable import Darknet
import Kernels
import XCTest

/// `[convolutional]`'s cfg keys, shapes and BFLOPs (its routes are in `Convolution/`), and the
/// naive reference the routes are tested against.
final class ConvolutionalTests: XCTestCase {
    /// The reference's dilated geometry, worked by hand: a 5×5 image holding 0…24, a 3×3 kernel
    /// of ones, dilation 2, `pad=1` (a border of 2): output (0, 0) sums the taps at rows and
    /// columns −2, 0, 2 inside the image, 0 + 2 + 10 + 12 = 24; output (2, 2) the taps at 0, 2, 4,
    /// (0 + 2 + 4) + (10 + 12 + 14) + (20 + 22 + 24) = 108.
    func testReferenceDilationByHand() {
        let output = ReferenceConvolution.forward(input: (0..<25).map(Float.init), channels: 1, height: 5, width: 5,
                                                  weights: [Float](repeating: 1, count: 9), filters: 1, size: 3, stride: 1,
                                                  pad: 1, groups: 1, dilation: 2)
        XCTAssertEqual(output.count, 25)
        XCTAssertEqual(output[0], 24)
        XCTAssertEqual(output[2 * 5 + 2], 108)
        // stride_x 2, stride_y 1, no dilation: 5 rows × 3 columns; output (1, 1) centres on pixel (1, 2).
        let anisotropic = ReferenceConvolution.forward(input: (0..<25).map(Float.init), channels: 1, height: 5, width: 5,
                                                       weights: [Float](repeating: 1, count: 9), filters: 1, size: 3,
                                                       stride: 2, pad: 1, groups: 1, strideY: 1)
        XCTAssertEqual(anisotropic.count, 15)
        XCTAssertEqual(anisotropic[1 * 3 + 1], (1 + 2 + 3) + (6 + 7 + 8) + (11 + 12 + 13))
    }

    /// stride_x / stride_y / dilation from the cfg: shapes, and the errors.
    func testStrideXYAndDilationFromTheCfg() throws {
        func parse(_ body: String) throws -> ModelDescription {
            try ModelDescription(text: "[net]\nwidth=20\nheight=12\nchannels=3\n[convolutional]\nfilters=4\nsize=3\npad=1\n" + body)
        }
        let strided = try parse("stride_x=2\nstride_y=1\n")
        XCTAssertEqual(strided.layers[0].output, TensorShape(channels: 4, height: 12, width: 10))
        let dilated = try parse("dilation=2\n")
        XCTAssertEqual(dilated.layers[0].output, TensorShape(channels: 4, height: 12, width: 20))
        guard case .convolutional(let conv) = dilated.layers[0].kind else { return XCTFail("not a convolution") }
        XCTAssertEqual(conv.dilation, 2)
        XCTAssertFalse(conv.winogradEligible)
        for (body, key) in [("stride_x=0\n", "stride_x"), ("dilation=0\n", "dilation")] {
            XCTAssertThrowsError(try parse(body)) { error in
                guard case .invalidValue(let location, _, _)? = error as? CfgError else { return XCTFail("\(body): \(error)") }
                XCTAssertEqual(location.key, key)
            }
        }
        XCTAssertThrowsError(try ModelDescription(text: "[net]\nwidth=9\nheight=9\nchannels=3\n[convolutional]\nfilters=4\nsize=3\npadding=0\ndilation=2\n")) { error in
            guard case .unsupported(let location, _)? = error as? CfgError else { return XCTFail("\(error)") }
            XCTAssertEqual(location.key, "dilation")
        }
    }

    func testShapeInferenceFollowsDarknet() {
        let conv = Convolutional(filters: 8, size: 3, stride: 2, padding: 1, groups: 1, batchNormalize: true, activation: .leaky)
        XCTAssertEqual(conv.outputShape(input: TensorShape(channels: 3, height: 416, width: 416)), TensorShape(channels: 8, height: 208, width: 208))
        XCTAssertEqual(conv.outputShape(input: TensorShape(channels: 3, height: 13, width: 13)), TensorShape(channels: 8, height: 7, width: 7))
        XCTAssertNil(Convolutional(filters: 1, size: 5, stride: 1, padding: 0, groups: 1, batchNormalize: false, activation: .linear)
            .outputShape(input: TensorShape(channels: 1, height: 3, width: 3)))
    }

    func testPadOneMeansHalfTheKernel() throws {
        let model = try ModelDescription(text: "[net]\nwidth=10\nheight=10\nchannels=1\n[convolutional]\nsize=5\npad=1\npadding=7\nfilters=2\n")
        guard case .convolutional(let conv) = model.layers[0].kind else { return XCTFail() }
        XCTAssertEqual(conv.padding, 2, "darknet: if (pad) padding = size/2")
        XCTAssertEqual(conv.activation, .logistic, "darknet's default activation")
    }

    func testBflopsOfAYolov3Layer() {
        // darknet prints 0.299 BFLOPs for yolov3's layer 0 at 416: 2·32·3·9·416·416 / 1e9.
        let conv = Convolutional(filters: 32, size: 3, stride: 1, padding: 1, groups: 1, batchNormalize: true, activation: .leaky)
        let input = TensorShape(channels: 3, height: 416, width: 416)
        XCTAssertEqual(conv.bflops(input: input, output: conv.outputShape(input: input)!), 0.299, accuracy: 0.0005)
    }
}
