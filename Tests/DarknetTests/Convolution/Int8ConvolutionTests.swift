@testable import Darknet
import Kernels
import TestSupport
import XCTest

/// The int8 route (`Int8Convolution`) against a naive int8 convolution: the same quantized
/// weights and input, the integer sums from the definition (`Σ v · (q − z)`, padding at `q =
/// z`), turned into floats as the route does and finished by the epilogue's reference. Every
/// layout (1×1, bands, blocks, the transposed product), odd shapes, groups, strides, dilation,
/// a residual, a batch: the outputs must be equal bit for bit, and the same on any worker count.
final class Int8ConvolutionTests: XCTestCase {
    typealias Case = PreparedConvolutionTests.Case

    static let cases: [(Case, Int8Convolution.Layout)] = [
        (Case(channels: 5, height: 24, width: 24, filters: 7, size: 1, stride: 1, pad: 0, groups: 1), .pointwise),
        (Case(channels: 6, height: 9, width: 11, filters: 19, size: 1, stride: 1, pad: 0, groups: 1), .transposed),
        (Case(channels: 6, height: 13, width: 13, filters: 19, size: 3, stride: 1, pad: 1, groups: 1), .transposed),
        (Case(channels: 16, height: 64, width: 64, filters: 9, size: 3, stride: 1, pad: 1, groups: 1), .bands(rows: 8)),
        (Case(channels: 64, height: 23, width: 23, filters: 5, size: 3, stride: 1, pad: 1, groups: 1), .blocks),
        (Case(channels: 6, height: 50, width: 50, filters: 4, size: 3, stride: 2, pad: 1, groups: 2), .blocks),
        (Case(channels: 3, height: 9, width: 11, filters: 4, size: 3, stride: 1, pad: 1, groups: 1, dilation: 2), .transposed),
        (Case(channels: 4, height: 9, width: 7, filters: 6, size: 3, stride: 2, pad: 1, groups: 2), .transposed),
        (Case(channels: 4, height: 5, width: 6, filters: 4, size: 3, stride: 1, pad: 1, groups: 4), .transposed),
        (Case(channels: 3, height: 60, width: 60, filters: 5, size: 1, stride: 2, pad: 0, groups: 1), .blocks),
        (Case(channels: 3, height: 9, width: 10, filters: 5, size: 3, stride: 2, pad: 1, groups: 1, strideY: 1), .transposed),
        (Case(channels: 2, height: 3, width: 3, filters: 3, size: 5, stride: 1, pad: 2, groups: 1), .transposed),
    ]

    func testEveryLayoutMatchesTheNaiveInt8Convolution() throws {
        let library = try TestTools.requireOneDNN(OneDNN.loaded)
        for (index, (c, layout)) in Self.cases.enumerated() {
            for images in [1, 2] {
                for activation in [Activation.leaky, .logistic] {
                    let run = try Self.run(c, library: library, images: images, activation: activation, residual: index % 3 == 0,
                                           seed: UInt64(index), threads: 2)
                    XCTAssertEqual(run.layout, layout, "\(c)")
                    Self.assertSameBits(run.output, run.reference, "\(c), \(images) images, \(activation)")
                }
            }
        }
    }

    /// Blocks of a few output rows (`Blocking.im2colFloats` small), and the same outputs.
    func testBlocksOfFewRowsMatch() throws {
        let library = try TestTools.requireOneDNN(OneDNN.loaded)
        var blocking = Blocking()
        blocking.im2colFloats = 700
        for (index, (c, _)) in Self.cases.enumerated() {
            let run = try Self.run(c, library: library, images: 2, activation: .leaky, residual: false, seed: UInt64(index),
                                   threads: 3, blocking: blocking)
            Self.assertSameBits(run.output, run.reference, "\(c)")
        }
    }

    /// One image and a batch, on 1, 2, 3 and 8 workers: the same bits (each image of the batch
    /// as when alone).
    func testBitsDoNotDependOnWorkersOrBatch() throws {
        let library = try TestTools.requireOneDNN(OneDNN.loaded)
        for (index, (c, _)) in Self.cases.enumerated() {
            let alone = try [1, 2, 3, 8].map { threads in
                try Self.run(c, library: library, images: 1, activation: .leaky, residual: false, seed: UInt64(index), threads: threads).output
            }
            for output in alone.dropFirst() { Self.assertSameBits(output, alone[0], "\(c)") }
            let batch = try Self.run(c, library: library, images: 3, activation: .leaky, residual: false, seed: UInt64(index),
                                     threads: 2, repeatFirstImage: true).output
            let plane = batch.count / 3 / c.filters
            let first = PreparedConvolutionTests.image(batch, 2, images: 3, channels: c.filters, plane: plane)
            Self.assertSameBits(first, alone[0], "\(c): image 3 of a batch, the first image again")
        }
    }

    /// The same bits everywhere, or a failure naming the first difference.
    static func assertSameBits(_ a: [Float], _ b: [Float], _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.count, b.count, message, file: file, line: line)
        if let i = a.indices.first(where: { $0 < b.count && a[$0].bitPattern != b[$0].bitPattern }) {
            XCTFail("\(message): element \(i) is \(a[i]), expected \(b[i])", file: file, line: line)
        }
    }

    struct Run {
        var output: [Float]
        var reference: [Float]
        var layout: Int8Convolution.Layout
    }

    /// One forward of `images` random images (inputs partly beyond the quantization range, so
    /// the clamp is exercised) through the int8 route, and the naive int8 convolution of them.
    static func run(_ c: Case, library: OneDNN.Library, images: Int, activation: Activation, residual: Bool, seed: UInt64,
                    threads: Int, blocking: Blocking = Blocking(), repeatFirstImage: Bool = false) throws -> Run {
        // `repeatFirstImage`: the last image of the batch is the first again.
        var conv = PreparedConvolutionTests.convolution(c)
        conv.activation = activation
        let inputShape = TensorShape(channels: c.channels, height: c.height, width: c.width)
        let outputShape = try XCTUnwrap(conv.outputShape(input: inputShape))
        let layer = Layer(index: 0, kind: .convolutional(conv), input: inputShape, output: outputShape,
                          location: CfgLocation(file: "test.cfg", line: 1))
        var generator = SplitMix64(state: seed)
        let fanIn = conv.fanIn(inputChannels: c.channels)
        let weights = (0..<(c.filters * fanIn)).map { _ in generator.uniform(-1, 1) }
        let biases = (0..<c.filters).map { _ in generator.uniform(-1, 1) }
        // The first image, then the rest of the batch: channel-major, image `b`'s channel `c` at `(c · images + b) · plane`.
        let first = (0..<inputShape.count).map { _ in generator.uniform(-1.2, 1.4) }
        let plane = c.height * c.width
        var input = [Float](repeating: 0, count: images * inputShape.count)
        for channel in 0..<c.channels {
            for b in 0..<images {
                for i in 0..<plane {
                    let value = b == 0 || (repeatFirstImage && b == images - 1) ? first[channel * plane + i] : generator.uniform(-1.2, 1.4)
                    input[(channel * images + b) * plane + i] = value
                }
            }
        }
        let levels = library.activationLevels
        let q = ActivationQuantization(scale: 2.2 / Float(levels), zeroPoint: (levels + 1) / 2, levels: levels)
        let spec = ConvolutionSpec(layer, conv, biases: biases)
        let route = weights.withUnsafeBufferPointer { Int8Convolution(spec, weights: $0, input: q, library: library) }
        let outputCount = images * outputShape.count
        let residualValues = residual ? (0..<outputCount).map { _ in generator.uniform(-1, 1) } : nil
        var output = [Float](repeating: .nan, count: outputCount)
        let kernels = KernelContext(threads: threads, blocking: blocking)
        let count = Int8Convolution.workspaceCount(spec.geometry, groups: spec.groups,
                                                   PlanningContext(batch: images, kernels: kernels, method: .int8))
        var workspace = [Float](repeating: .nan, count: max(1, count))
        input.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { output in
                (residualValues ?? []).withUnsafeBufferPointer { residualBuffer in
                    workspace.withUnsafeMutableBufferPointer { workspace in
                        var timer: PhaseTimer? = nil
                        let io = ConvolutionIO(input: input.baseAddress!, output: output.baseAddress!, images: images,
                                               residual: residual ? residualBuffer.baseAddress! : nil, pooled: nil)
                        route.run(io, workspace: workspace.baseAddress!, context: kernels, timer: &timer)
                    }
                }
            }
        }
        let reference = naive(c, route: route, input: input, images: images, outputShape: outputShape, residual: residualValues)
        return Run(output: output, reference: reference, layout: route.layout)
    }

    /// The definition: per output, `Σ v · (q − z)` over the window (a tap outside the image is
    /// `q = z`, so it adds nothing), `Float(sum) · scales[f]`, then `Epilogue.reference` (bias, activation, residual).
    static func naive(_ c: Case, route: Int8Convolution, input: [Float], images: Int, outputShape: TensorShape,
                      residual: [Float]?) -> [Float] {
        let q = route.input
        let strideY = c.strideY ?? c.stride
        let (groupChannels, groupFilters) = (c.channels / c.groups, c.filters / c.groups)
        let plane = c.height * c.width, outPlane = outputShape.height * outputShape.width
        let k = groupChannels * c.size * c.size
        let border = c.pad * c.dilation  // AlexeyAB's: the border is `pad · dilation` wide (`ReferenceConvolution`)
        var output = [Float](repeating: 0, count: images * outputShape.count)
        for b in 0..<images {
            for f in 0..<c.filters {
                let group = f / groupFilters
                for oy in 0..<outputShape.height {
                    for ox in 0..<outputShape.width {
                        var sum = 0
                        for channel in 0..<groupChannels {
                            for ky in 0..<c.size {
                                for kx in 0..<c.size {
                                    let y = oy * strideY + ky * c.dilation - border, x = ox * c.stride + kx * c.dilation - border
                                    guard y >= 0, y < c.height, x >= 0, x < c.width else { continue }
                                    let inputChannel = group * groupChannels + channel
                                    let value = input[(inputChannel * images + b) * plane + y * c.width + x]
                                    let byte = Int(UInt8(bitPattern: Quantization.quantizeReference(value, q, unsigned: true)))
                                    let weight = Int(route.weights[f * k + (channel * c.size + ky) * c.size + kx])
                                    sum += weight * (byte - Int(q.zeroPoint))
                                }
                            }
                        }
                        let i = (f * images + b) * outPlane + oy * outputShape.width + ox
                        var y = Float(sum) * route.scales[f]
                        residual.map { r in r.withUnsafeBufferPointer { r in
                            Epilogue.reference(&y, count: 1, bias: route.spec.biases[f], activation: route.spec.activation,
                                               adding: r.baseAddress! + i)
                        } } ?? Epilogue.reference(&y, count: 1, bias: route.spec.biases[f], activation: route.spec.activation)
                        output[i] = y
                    }
                }
            }
        }
        return output
    }
}
