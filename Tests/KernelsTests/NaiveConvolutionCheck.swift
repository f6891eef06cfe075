@testable import Kernels
import TestSupport
import XCTest

/// A 3×3 convolution route against the naive one (`ReferenceConvolution`), on `images` CHW images
/// padded apart by 5 floats, written 3 floats apart: the route must honour both strides and never
/// write the NaN that follows each output image. Each output must be within 1e-5 of the naive
/// value plus its bias, relative to the sum of |products| behind it.
enum NaiveConvolutionCheck {
    /// `run(input, inputStride, outputStride, weights, biases)` gives the route's output.
    static func check(geometry g: ConvolutionGeometry, stride: Int, images: Int, generator: inout SplitMix64,
                      _ label: String,
                      run: (_ input: [Float], _ inputStride: Int, _ outputStride: Int, _ weights: [Float], _ biases: [Float]) -> [Float],
                      file: StaticString = #filePath, line: UInt = #line) {
        let plane = g.channels * g.height * g.width, outPlane = g.filters * g.outHeight * g.outWidth
        let input = (0..<(images * (plane + 5))).map { _ in generator.uniform(-1, 1) }
        let weights = (0..<(g.filters * g.channels * 9)).map { _ in generator.uniform(-1, 1) }
        let biases = (0..<g.filters).map { _ in generator.uniform(-1, 1) }
        let output = run(input, plane + 5, outPlane + 3, weights, biases)
        for b in 0..<images {
            let image = Array(input[(b * (plane + 5))..<(b * (plane + 5) + plane)])
            let reference = naive(g, stride: stride, image, weights)
            let magnitude = naive(g, stride: stride, image.map(abs), weights.map(abs))
            for i in 0..<outPlane {
                let expected = reference[i] + biases[i / (g.outHeight * g.outWidth)]
                XCTAssertEqual(output[b * (outPlane + 3) + i], expected, accuracy: 1e-5 * (magnitude[i] + 1),
                               "\(label) image \(b) at \(i)", file: file, line: line)
            }
            XCTAssertTrue(output[b * (outPlane + 3) + outPlane].isNaN, "\(label): wrote past image \(b)", file: file, line: line)
        }
    }

    /// The naive convolution of one CHW image.
    static func naive(_ g: ConvolutionGeometry, stride: Int, _ image: [Float], _ weights: [Float]) -> [Float] {
        ReferenceConvolution.forward(input: image, channels: g.channels, height: g.height, width: g.width, weights: weights,
                                     filters: g.filters, size: 3, stride: stride, pad: g.pad, groups: 1)
    }
}
