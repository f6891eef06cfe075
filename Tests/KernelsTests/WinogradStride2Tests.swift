@testable import Kernels
import TestSupport
import XCTest

/// The stride-2 Winograd (`WinogradStride2`), with weights packed for OpenBLAS's kernel or
/// plain for `cblas_sgemm`, against the naive convolution (`ReferenceConvolution`, summed in
/// Double), and its weight transform against the matrices (`WinogradStride2Reference`).
///
/// Tolerance as in `WinogradTests`: each output within 1e-5 × (the sum of |weight·input|
/// behind it + 1). The transforms here only add and subtract, so correct code is ~1e-7 off;
/// a wrong window or position is off by a whole product.
final class WinogradStride2Tests: XCTestCase {
    struct Case {
        var channels, height, width, filters, pad: Int

        var outHeight: Int { (height + 2 * pad - 3) / 2 + 1 }
        var outWidth: Int { (width + 2 * pad - 3) / 2 + 1 }
        var geometry: ConvolutionGeometry {
            ConvolutionGeometry(channels: channels, height: height, width: width, filters: filters, outHeight: outHeight,
                                outWidth: outWidth, size: 3, strideX: 2, strideY: 2, pad: pad)
        }
    }

    static let cases: [Case] = [
        Case(channels: 1, height: 1, width: 1, filters: 4, pad: 1),      // 1×1 output from one pixel
        Case(channels: 3, height: 4, width: 4, filters: 2, pad: 1),      // one whole tile
        Case(channels: 2, height: 5, width: 7, filters: 3, pad: 1),      // odd output sides: half tiles
        Case(channels: 4, height: 26, width: 26, filters: 8, pad: 1),    // yolov3's 26 → 13
        Case(channels: 3, height: 9, width: 11, filters: 4, pad: 0),     // no padding
        Case(channels: 2, height: 6, width: 9, filters: 2, pad: 2),      // more padding than darknet uses
        Case(channels: 67, height: 10, width: 9, filters: 33, pad: 1),   // many channels
        // Wide rows: eight tiles at a time where their windows lie inside the row (36 floats
        // from 4·column − pad), one by one at the edges; even and odd output widths.
        Case(channels: 3, height: 6, width: 80, filters: 4, pad: 1),
        Case(channels: 2, height: 5, width: 83, filters: 3, pad: 0),
        Case(channels: 2, height: 7, width: 150, filters: 2, pad: 2),
        // Packed kernel: channels past one K block of 512 (`PackedGEMM.kBlock`), filters in
        // whole panels of 4 but not blocks of 16.
        Case(channels: 515, height: 7, width: 6, filters: 12, pad: 1),
    ]

    /// OpenBLAS's packed kernel where it is available, and plain `cblas_sgemm` always.
    static var kernels: [PackedGEMM.Kernel?] { PackedGEMM.kernel == nil ? [nil] : [PackedGEMM.kernel, nil] }

    /// Whole, in tiny passes of tile rows and in bands (each band's three phases on one
    /// worker), against the naive convolution (`Blocking.winogradCuts`).
    func testEveryCutMatchesNaiveConvolution() {
        for blocking in Blocking.winogradCuts { checkMatchesNaiveConvolution(blocking) }
    }

    /// Bands give the bits of the passes they replace (within rounding where OpenBLAS's kernel
    /// does not ignore the cut: `BandBits`), with the activation, the residual and two images, on
    /// 1, 2 and 3 workers, and the same bits on 1 worker as on 3; 52×52 outputs (26 tile rows) run in bands by default.
    func testBandsGiveThePassesBits() {
        var generator = SplitMix64(state: 29)
        let c = Case(channels: 9, height: 61, width: 23, filters: 12, pad: 1)
        let images = 2, outCount = images * c.filters * c.outHeight * c.outWidth
        let input = (0..<(images * c.channels * c.height * c.width)).map { _ in generator.uniform(-1, 1) }
        let weights = (0..<(c.filters * c.channels * 9)).map { _ in generator.uniform(-1, 1) }
        let biases = (0..<c.filters).map { _ in generator.uniform(-1, 1) }
        let residual = (0..<outCount).map { _ in generator.uniform(-1, 1) }
        for kernel in Self.kernels {
            let expected = run(c, kernel: kernel, images: images, input: input, weights: weights, biases: biases,
                               activation: .leaky, residual: residual, blocking: .passesOnly)
            for (rows, threads) in [(1, 1), (2, 2), (4, 3)] {
                let banded = run(c, kernel: kernel, images: images, input: input, weights: weights, biases: biases,
                                 activation: .leaky, residual: residual, blocking: .bands(of: rows), threads: threads)
                BandBits.check(banded, against: expected,
                               "packed \(kernel != nil), bands of \(rows) tile rows, \(threads) threads")
            }
            let alone = run(c, kernel: kernel, images: images, input: input, weights: weights, biases: biases,
                            activation: .leaky, residual: residual, blocking: .bands(of: 2), threads: 1)
            let shared = run(c, kernel: kernel, images: images, input: input, weights: weights, biases: biases,
                             activation: .leaky, residual: residual, blocking: .bands(of: 2), threads: 3)
            XCTAssertEqual(alone.map(\.bitPattern), shared.map(\.bitPattern),
                           "packed \(kernel != nil), bands of 2 tile rows: 1 and 3 workers, on every kernel")
        }
        let layer = Case(channels: 64, height: 104, width: 104, filters: 128, pad: 1)
        XCTAssertNotNil(WinogradStride2.bandCount(layer.geometry, Blocking()), "a 52×52 output: 26 tile rows")
        XCTAssertNil(WinogradStride2.bandCount(Case(channels: 64, height: 52, width: 52, filters: 128, pad: 1).geometry,
                                               Blocking()), "a 26×26 output: 13 tile rows")
    }

    func checkMatchesNaiveConvolution(_ blocking: Blocking) {
        var generator = SplitMix64(state: 23)
        for kernel in Self.kernels {
            for c in Self.cases {
                for images in [1, 2] {
                    NaiveConvolutionCheck.check(geometry: c.geometry, stride: 2, images: images, generator: &generator,
                                                "packed \(kernel != nil) \(c), \(blocking.winogradFloats) floats") {
                        run(c, kernel: kernel, images: images, input: $0, inputStride: $1, outputStride: $2, weights: $3,
                            biases: $4, blocking: blocking)
                    }
                }
            }
        }
    }

    /// `G g Gᵀ` as the matrices give it; the blocked, parallel transform gives the same bits
    /// on 1 and 2 workers; packed, each position is `PackedGEMM.packWeights` of the plain plane.
    func testWeightTransform() {
        var generator = SplitMix64(state: 29)
        for (filters, channels) in [(1, 3), (3, 5), (64, 33), (130, 31)] {
            let weights = (0..<(filters * channels * 9)).map { _ in generator.uniform(-2, 2) }
            let plane = filters * channels
            let one = weights.withUnsafeBufferPointer {
                WinogradStride2.transformWeights($0, filters: filters, channels: channels, packed: nil, threads: 1)
            }
            for k in 0..<plane {
                let expected = WinogradStride2Reference.weights(Array(weights[(k * 9)..<(k * 9 + 9)]))
                for position in 0..<25 {
                    XCTAssertEqual(Double(one[position * plane + k]), expected[position], accuracy: 1e-6,
                                   "\(filters)×\(channels) kernel \(k) position \(position)")
                }
            }
            let two = weights.withUnsafeBufferPointer {
                WinogradStride2.transformWeights($0, filters: filters, channels: channels, packed: nil, threads: 2)
            }
            XCTAssertEqual(two.map(\.bitPattern), one.map(\.bitPattern), "\(filters)×\(channels), 2 workers")
            guard let kernel = PackedGEMM.kernel else { continue }
            let packed = weights.withUnsafeBufferPointer {
                WinogradStride2.transformWeights($0, filters: filters, channels: channels, packed: kernel, threads: 2)
            }
            var expected = one
            for position in 0..<25 {
                expected.withUnsafeMutableBufferPointer { e in
                    one.withUnsafeBufferPointer { o in
                        PackedGEMM.packWeights(kernel, o.baseAddress! + position * plane, rows: filters, k: channels,
                                               ldw: channels, into: e.baseAddress! + position * plane)
                    }
                }
            }
            XCTAssertEqual(packed.map(\.bitPattern), expected.map(\.bitPattern), "\(filters)×\(channels) packed")
        }
    }

    /// The matrices themselves: `Aᵀ[(G g Gᵀ) ⊙ (Bᵀ d B)]A` of a 5×5 window is the 3×3 stride-2
    /// convolution of that window (its 2×2 outputs at window offsets 0 and 2).
    func testMatricesComputeTheStride2Convolution() {
        var generator = SplitMix64(state: 31)
        for _ in 0..<20 {
            let kernel = (0..<9).map { _ in generator.uniform(-2, 2) }
            let window = (0..<25).map { _ in generator.uniform(-2, 2) }
            let u = WinogradStride2Reference.weights(kernel), v = WinogradStride2Reference.input(window)
            let products = zip(u, v).map { Float($0 * $1) }
            let tile = WinogradStride2Reference.output(products)
            for oy in 0..<2 {
                for ox in 0..<2 {
                    var direct = 0.0
                    for ky in 0..<3 {
                        for kx in 0..<3 {
                            direct += Double(kernel[ky * 3 + kx]) * Double(window[(2 * oy + ky) * 5 + 2 * ox + kx])
                        }
                    }
                    XCTAssertEqual(tile[oy * 2 + ox], direct, accuracy: 1e-5, "output (\(oy), \(ox))")
                }
            }
        }
    }

    /// The epilogue: the activation after the bias, then the residual.
    func testActivationAndResidualAreApplied() {
        var generator = SplitMix64(state: 37)
        let c = Case(channels: 2, height: 9, width: 20, filters: 4, pad: 1)
        let outCount = c.filters * c.outHeight * c.outWidth
        let input = (0..<(c.channels * c.height * c.width)).map { _ in generator.uniform(-1, 1) }
        let weights = (0..<(c.filters * c.channels * 9)).map { _ in generator.uniform(-1, 1) }
        let biases: [Float] = [0.1, -0.2, 0.3, 0]
        let residual = (0..<outCount).map { _ in generator.uniform(-1, 1) }
        for kernel in Self.kernels {
            let linear = run(c, kernel: kernel, input: input, weights: weights, biases: biases)
            XCTAssertTrue(linear.contains { $0 < 0 })
            for activation in [Activation.leaky, .mish] {
                let applied = run(c, kernel: kernel, input: input, weights: weights, biases: biases, activation: activation)
                XCTAssertEqual(applied, linear.map { activation.value($0) }, "\(activation)")
                let added = run(c, kernel: kernel, input: input, weights: weights, biases: biases, activation: activation,
                                residual: residual)
                XCTAssertEqual(added, zip(applied, residual).map { $0 + $1 }, "\(activation) + residual")
            }
        }
    }

    /// The same bits on 1, 2, 3 and 8 workers, and each image of a batch the bits it gets alone.
    func testWorkersAndBatchesGiveTheSameBits() {
        var generator = SplitMix64(state: 41)
        let c = Case(channels: 37, height: 26, width: 26, filters: 68, pad: 1)
        let plane = c.channels * c.height * c.width, outPlane = c.filters * c.outHeight * c.outWidth
        let input = (0..<(3 * plane)).map { _ in generator.uniform(-1, 1) }
        let weights = (0..<(c.filters * c.channels * 9)).map { _ in generator.uniform(-1, 1) }
        let biases = (0..<c.filters).map { _ in generator.uniform(-1, 1) }
        for kernel in Self.kernels {
            let alone = (0..<3).map { b in
                run(c, kernel: kernel, input: Array(input[(b * plane)..<((b + 1) * plane)]), weights: weights, biases: biases,
                    activation: .leaky, threads: 1)
            }
            for threads in [1, 2, 3, 8] {
                let batch = run(c, kernel: kernel, images: 3, input: input, weights: weights, biases: biases,
                                activation: .leaky, threads: threads)
                for b in 0..<3 {
                    XCTAssertEqual(Array(batch[(b * outPlane)..<((b + 1) * outPlane)]).map(\.bitPattern),
                                   alone[b].map(\.bitPattern), "packed \(kernel != nil), \(threads) workers, image \(b)")
                }
            }
        }
    }

    /// `WinogradStride2.forward` on `images` CHW images `inputStride` floats apart (default:
    /// packed), outputs `outputStride` apart.
    private func run(_ c: Case, kernel: PackedGEMM.Kernel?, images: Int = 1, input: [Float], inputStride: Int? = nil,
                     outputStride: Int? = nil, weights: [Float], biases: [Float], activation: Activation = .linear,
                     residual: [Float]? = nil, blocking: Blocking = Blocking(), threads: Int = 2) -> [Float] {
        let context = KernelContext(threads: threads, packed: kernel, blocking: blocking)
        let g = c.geometry
        let (inPlane, outPlane) = (c.height * c.width, c.outHeight * c.outWidth)
        let prepared = weights.withUnsafeBufferPointer {
            WinogradStride2.transformWeights($0, filters: c.filters, channels: c.channels, packed: kernel, threads: threads)
        }
        let outStride = outputStride ?? c.filters * outPlane
        var output = [Float](repeating: .nan, count: images * outStride)
        var workspace = [Float](repeating: .nan, count: WinogradStride2.workspaceCount(g, blocking: blocking))
        var timer: PhaseTimer? = nil
        input.withUnsafeBufferPointer { i in
            output.withUnsafeMutableBufferPointer { o in
                workspace.withUnsafeMutableBufferPointer { w in
                    prepared.withUnsafeBufferPointer { u in
                        biases.withUnsafeBufferPointer { b in
                            (residual ?? []).withUnsafeBufferPointer { r in
                                var inputView = TensorView(i.baseAddress!, channels: c.channels, height: c.height, width: c.width)
                                (inputView.imageStride, inputView.channelStride) = (inputStride ?? c.channels * inPlane, inPlane)
                                var outputView = MutableTensorView(o.baseAddress!, channels: c.filters, height: c.outHeight,
                                                                   width: c.outWidth)
                                (outputView.imageStride, outputView.channelStride) = (outStride, outPlane)
                                WinogradStride2.forward(g, input: inputView, images: images, u: u.baseAddress!, kernel: kernel,
                                                        output: outputView,
                                                        epilogue: Epilogue(biases: b.baseAddress!, activation: activation,
                                                                           residual: residual == nil ? nil : r.baseAddress),
                                                        workspace: w.baseAddress!, context: context, timer: &timer)
                            }
                        }
                    }
                }
            }
        }
        return output
    }
}
