@testable import Darknet
import XCTest

/// `WinogradStride2` (3×3 stride-2 convolutions through 81 transform positions per 4×4 tile, or
/// 25 per 2×2 tile) against the naive convolution (`ReferenceConvolution`, summed in Double),
/// with `WinogradTests`' tolerance: each output within 1e-5 × (the sum of |weight·input|
/// products that feed it + 1).
final class WinogradStride2Tests: XCTestCase {
    struct Case {
        var channels, height, width, filters, pad: Int
        var outHeight: Int { (height + 2 * pad - 3) / 2 + 1 }
        var outWidth: Int { (width + 2 * pad - 3) / 2 + 1 }
    }

    static let cases: [Case] = [
        Case(channels: 1, height: 1, width: 1, filters: 1, pad: 1),     // 1×1 output, one partial tile
        Case(channels: 3, height: 8, width: 8, filters: 2, pad: 1),     // exactly one tile
        Case(channels: 2, height: 9, width: 13, filters: 3, pad: 1),    // odd sizes, partial tiles
        Case(channels: 4, height: 26, width: 26, filters: 5, pad: 1),   // yolov3's 26 → 13
        Case(channels: 3, height: 11, width: 17, filters: 4, pad: 0),   // no padding
        Case(channels: 2, height: 7, width: 6, filters: 2, pad: 2),     // more padding than darknet uses
        Case(channels: 67, height: 10, width: 9, filters: 33, pad: 1),  // many channels
        // Wide rows: many tile columns, interior windows and both edges; a width of 4k + 1, 4k + 2
        // and 4k + 3 outputs (the last tile column cut short); for `.f2`, 8-tile runs (16 outputs)
        // with tails of 1–7 tiles, and an odd width of 37 outputs.
        Case(channels: 3, height: 6, width: 70, filters: 4, pad: 1),
        Case(channels: 2, height: 5, width: 73, filters: 3, pad: 1),
        Case(channels: 2, height: 4, width: 75, filters: 2, pad: 1),
        // Packed kernel: channels past one K block of 512 (`PackedGEMM.kBlock`), filters in whole
        // panels of 4 but not blocks of 16.
        Case(channels: 515, height: 12, width: 10, filters: 12, pad: 1),
        // 3 × 5 tiles: 15 a pass, packed for the kernel in panels of 8, 4, 2 and 1.
        Case(channels: 3, height: 20, width: 40, filters: 5, pad: 1),
        // `.f2`: two full 8-tile runs along x (32 outputs from 65 pixels) and one past them.
        Case(channels: 2, height: 9, width: 65, filters: 3, pad: 1),
        Case(channels: 2, height: 7, width: 66, filters: 2, pad: 0),
    ]

    static let variants: [WinogradStride2.Variant] = [.f4, .f2]

    /// Filter-major products through `GEMM.serial`, and packed ones where OpenBLAS's kernel is available.
    static let orientations: [Winograd.Orientation] = [.filterMajor] + (PackedGEMM.kernel == nil ? [] : [.packed])

    func testMatchesNaiveConvolution() {
        checkMatchesNaiveConvolution()
    }

    /// Large outputs go through in blocks of tile rows: force one tile row, and a few, a pass.
    func testBlockedPassesMatchNaiveConvolution() {
        let saved = WinogradStride2.blockFloats
        defer { WinogradStride2.blockFloats = saved }
        for blockFloats in [1, 30000] {
            WinogradStride2.blockFloats = blockFloats
            checkMatchesNaiveConvolution()
        }
    }

    func checkMatchesNaiveConvolution() {
        var generator = SplitMix64(state: 17)
        for variant in Self.variants {
          for orientation in Self.orientations {
            for c in Self.cases {
                for batch in [1, 2] {
                    let plane = c.channels * c.height * c.width, outPlane = c.filters * c.outHeight * c.outWidth
                    // Images padded apart by 5 floats to prove the strides are honoured.
                    let input = (0..<(batch * (plane + 5))).map { _ in generator.uniform(-1, 1) }
                    let weights = (0..<(c.filters * c.channels * 9)).map { _ in generator.uniform(-1, 1) }
                    let biases = (0..<c.filters).map { _ in generator.uniform(-1, 1) }
                    let output = run(c, variant, orientation: orientation, batch: batch, input: input, inputStride: plane + 5,
                                     outputStride: outPlane + 3, weights: weights, biases: biases)
                    for b in 0..<batch {
                        let image = Array(input[(b * (plane + 5))..<(b * (plane + 5) + plane)])
                        let reference = ReferenceConvolution.forward(input: image, channels: c.channels, height: c.height,
                                                                     width: c.width, weights: weights, filters: c.filters,
                                                                     size: 3, stride: 2, pad: c.pad, groups: 1)
                        let magnitude = ReferenceConvolution.forward(input: image.map(abs), channels: c.channels,
                                                                     height: c.height, width: c.width, weights: weights.map(abs),
                                                                     filters: c.filters, size: 3, stride: 2, pad: c.pad, groups: 1)
                        XCTAssertEqual(reference.count, outPlane)
                        for i in 0..<outPlane {
                            let expected = reference[i] + biases[i / (c.outHeight * c.outWidth)]
                            XCTAssertEqual(output[b * (outPlane + 3) + i], expected, accuracy: 1e-5 * (magnitude[i] + 1),
                                           "\(variant) \(orientation) \(c) batch \(b) at \(i)")
                        }
                        XCTAssertTrue(output[b * (outPlane + 3) + outPlane].isNaN,
                                      "\(variant) \(orientation) \(c): wrote past image \(b)")
                    }
                }
            }
          }
        }
    }

    /// Bias, activation and then the residual are applied in the output transform, as
    /// `Convolutional.biasActivation` applies them after im2col.
    func testActivationAndResidual() {
        var generator = SplitMix64(state: 3)
        let c = Case(channels: 2, height: 11, width: 10, filters: 3, pad: 1)
        let count = c.filters * c.outHeight * c.outWidth
        let input = (0..<(c.channels * c.height * c.width)).map { _ in generator.uniform(-1, 1) }
        let weights = (0..<(c.filters * c.channels * 9)).map { _ in generator.uniform(-1, 1) }
        let residual = (0..<count).map { _ in generator.uniform(-1, 1) }
        let biases: [Float] = [0.1, -0.2, 0.3]
        for variant in Self.variants {
            let linear = run(c, variant, orientation: .filterMajor, batch: 1, input: input, inputStride: 0, outputStride: 0,
                             weights: weights, biases: biases)
            XCTAssertTrue(linear.contains { $0 < 0 })
            for activation in [Activation.leaky, .mish] {
                let applied = run(c, variant, orientation: .filterMajor, batch: 1, input: input, inputStride: 0, outputStride: 0,
                                  weights: weights, biases: biases, activation: activation, residual: residual)
                XCTAssertEqual(applied, zip(linear, residual).map { activation.value($0) + $1 }, "\(variant) \(activation)")
            }
        }
    }

    /// The same bits on 1, 2, 3 and 8 workers: one product call per position, and each worker
    /// transforms whole channels and whole filters, or (small weights, as here) each row part
    /// of a pass is cut by shape and runs on one worker.
    func testSameBitsOnAnyWorkerCount() {
        let saved = GEMM.threads
        defer { GEMM.threads = saved }
        var generator = SplitMix64(state: 5)
        let c = Case(channels: 37, height: 30, width: 29, filters: 68, pad: 1)
        let input = (0..<(c.channels * c.height * c.width)).map { _ in generator.uniform(-1, 1) }
        let weights = (0..<(c.filters * c.channels * 9)).map { _ in generator.uniform(-1, 1) }
        let biases = (0..<c.filters).map { _ in generator.uniform(-1, 1) }
        for variant in Self.variants {
            for orientation in Self.orientations {
                var outputs: [[Float]] = []
                for threads in [1, 2, 3, 8] {
                    GEMM.threads = threads
                    outputs.append(run(c, variant, orientation: orientation, batch: 1, input: input, inputStride: 0,
                                       outputStride: 0, weights: weights, biases: biases, activation: .leaky))
                }
                for (index, output) in outputs.enumerated().dropFirst() {
                    XCTAssertTrue(zip(output, outputs[0]).allSatisfy { $0.bitPattern == $1.bitPattern },
                                  "\(variant) \(orientation), run \(index)")
                }
            }
        }
    }

    /// Passes cut into row parts (`rowParts`: small weights) give the whole passes' output: bit
    /// for bit with OpenBLAS's `Cooperlake` kernel, whose bits do not depend on where a call's
    /// columns are cut (`PackedGEMM`), else (`cblas_sgemm`, other kernels) within the naive
    /// tests' tolerance. Several passes of a few tile rows,
    /// an odd row count (parts of unequal size), a residual and an activation.
    func testRowPartsMatchWholePasses() {
        let (savedBytes, savedBlock) = (Winograd.partsWeightBytes, WinogradStride2.blockFloats)
        defer { (Winograd.partsWeightBytes, WinogradStride2.blockFloats) = (savedBytes, savedBlock) }
        var generator = SplitMix64(state: 23)
        let exact = PackedGEMM.kernel?.core == "COOPERLAKE"
        for (c, blockFloats) in [(Case(channels: 37, height: 30, width: 29, filters: 68, pad: 1), 5 << 19),
                                 (Case(channels: 3, height: 42, width: 40, filters: 5, pad: 1), 12000)] {
            let input = (0..<(c.channels * c.height * c.width)).map { _ in generator.uniform(-1, 1) }
            let weights = (0..<(c.filters * c.channels * 9)).map { _ in generator.uniform(-1, 1) }
            let biases = (0..<c.filters).map { _ in generator.uniform(-1, 1) }
            let residual = (0..<(c.filters * c.outHeight * c.outWidth)).map { _ in generator.uniform(-1, 1) }
            // The sum of |weight·input| products behind each output (the naive tests' tolerance).
            let magnitude = ReferenceConvolution.forward(input: input.map(abs), channels: c.channels, height: c.height,
                                                         width: c.width, weights: weights.map(abs), filters: c.filters,
                                                         size: 3, stride: 2, pad: c.pad, groups: 1)
            WinogradStride2.blockFloats = blockFloats
            for variant in Self.variants {
                let t = WinogradStride2.tiles(variant, outHeight: c.outHeight, outWidth: c.outWidth)
                let rows = WinogradStride2.blockRows(variant, channels: c.channels, filters: c.filters, tileRows: t.rows,
                                                     tileColumns: t.columns)
                XCTAssertGreaterThan(rows, 2, "\(variant) \(c): passes of several tile rows")
                Winograd.partsWeightBytes = savedBytes
                XCTAssertEqual(WinogradStride2.rowParts(variant, channels: c.channels, filters: c.filters, tileRows: rows), 2)
                for orientation in Self.orientations {
                    var outputs: [[Float]] = []
                    for bytes in [savedBytes, 0] {
                        Winograd.partsWeightBytes = bytes
                        outputs.append(run(c, variant, orientation: orientation, batch: 1, input: input, inputStride: 0,
                                           outputStride: 0, weights: weights, biases: biases, activation: .leaky,
                                           residual: residual))
                    }
                    WinogradTests.assertRowParts(outputs[0], matchWhole: outputs[1], bitForBit: exact && orientation == .packed,
                                                 magnitude: magnitude, "\(variant) \(orientation) \(c)")
                }
            }
        }
    }

    /// The weight transform is `G g Gᵀ` with the documented `G`: a kernel with one tap set gives
    /// that tap's column of `G` times its row of `G` (the middle tap reaches the first four
    /// positions of each side only, the corners the last five).
    func testWeightTransformOfSingleTaps() {
        let g: [[Double]] = [
            [0, 0, 0, 0, 1.0 / 2, 1.0 / 2, 1.0 / 6, 1.0 / 6, 0],   // tap 0 (g0)
            [1, 1, 1, 1, 0, 0, 0, 0, 0],                             // tap 1 (g1)
            [0, 0, 0, 0, 0, 1.0 / 2, -1.0 / 6, 2.0 / 6, 1],          // tap 2 (g2)
        ]
        for tap in 0..<9 {
            var kernel = [Float](repeating: 0, count: 9)
            kernel[tap] = 1
            let u = kernel.withUnsafeBufferPointer {
                WinogradStride2.transformWeights(.f4, $0, filters: 1, channels: 1, orientation: .filterMajor)
            }
            for p in 0..<9 {
                for q in 0..<9 {
                    XCTAssertEqual(u[p * 9 + q], Float(g[tap / 3][p] * g[tap % 3][q]), "tap \(tap) position (\(p), \(q))")
                }
            }
        }
    }

    /// `.f2`'s `G` rows (g1, g1, g0, g0 + g2, g2): the middle tap reaches the first two positions
    /// of each side, tap 0 positions 2 and 3, tap 2 positions 3 and 4, all with weight 1.
    func testF2WeightTransformOfSingleTaps() {
        let g: [[Double]] = [
            [0, 0, 1, 1, 0],   // tap 0 (g0)
            [1, 1, 0, 0, 0],   // tap 1 (g1)
            [0, 0, 0, 1, 1],   // tap 2 (g2)
        ]
        for tap in 0..<9 {
            var kernel = [Float](repeating: 0, count: 9)
            kernel[tap] = 1
            let u = kernel.withUnsafeBufferPointer {
                WinogradStride2.transformWeights(.f2, $0, filters: 1, channels: 1, orientation: .filterMajor)
            }
            XCTAssertEqual(u.count, 25)
            for p in 0..<5 {
                for q in 0..<5 {
                    XCTAssertEqual(u[p * 5 + q], Float(g[tap / 3][p] * g[tap % 3][q]), "tap \(tap) position (\(p), \(q))")
                }
            }
        }
    }

    /// `.f2` is exact on small integers: its transforms only add and subtract, so every value on
    /// the way is an integer below 2²⁴ and the outputs are the naive convolution's, bit for bit.
    func testF2IsExactOnSmallIntegers() {
        var generator = SplitMix64(state: 11)
        let c = Case(channels: 5, height: 21, width: 38, filters: 6, pad: 1)
        let input = (0..<(c.channels * c.height * c.width)).map { _ in Float(Int(generator.uniform(-8, 8))) }
        let weights = (0..<(c.filters * c.channels * 9)).map { _ in Float(Int(generator.uniform(-8, 8))) }
        let biases = [Float](repeating: 0, count: c.filters)
        let reference = ReferenceConvolution.forward(input: input, channels: c.channels, height: c.height, width: c.width,
                                                     weights: weights, filters: c.filters, size: 3, stride: 2, pad: c.pad,
                                                     groups: 1)
        for orientation in Self.orientations {
            let output = run(c, .f2, orientation: orientation, batch: 1, input: input, inputStride: 0, outputStride: 0,
                             weights: weights, biases: biases)
            XCTAssertEqual(output, reference, "\(orientation)")
        }
    }

    private func run(_ c: Case, _ variant: WinogradStride2.Variant, orientation: Winograd.Orientation, batch: Int, input: [Float], inputStride: Int,
                     outputStride: Int, weights: [Float], biases: [Float], activation: Activation = .linear,
                     residual: [Float]? = nil) -> [Float] {
        let transformed = weights.withUnsafeBufferPointer {
            WinogradStride2.transformWeights(variant, $0, filters: c.filters, channels: c.channels, orientation: orientation)
        }
        var output = [Float](repeating: .nan, count: batch * max(outputStride, c.filters * c.outHeight * c.outWidth))
        var workspace = [Float](repeating: .nan, count: WinogradStride2.workspaceCount(
            variant, channels: c.channels, filters: c.filters, outHeight: c.outHeight, outWidth: c.outWidth))
        var timer: PhaseTimer? = nil
        output.withUnsafeMutableBufferPointer { o in
            workspace.withUnsafeMutableBufferPointer { w in
                WinogradStride2.forward(variant, input: input, channels: c.channels, height: c.height, width: c.width, pad: c.pad,
                                        output: o.baseAddress!, filters: c.filters, outHeight: c.outHeight,
                                        outWidth: c.outWidth, transformed: transformed, orientation: orientation,
                                        biases: biases, activation: activation, workspace: w.baseAddress!, batch: batch,
                                        inputStride: inputStride, outputStride: outputStride, residual: residual,
                                        timer: &timer)
            }
        }
        return output
    }
}
