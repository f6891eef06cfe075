@testable import Kernels
import TestSupport
import XCTest

/// F(4×4, 3×3), with weights transformed at load (packed for OpenBLAS's kernel, or plain for
/// `cblas_sgemm`) and streamed, against the naive convolution (`ReferenceConvolution`, summed
/// in Double).
///
/// Tolerance: Winograd adds and subtracts transformed values whose magnitude can reach ~100×
/// the inputs' (the 4s, 5s and 8s of `Bᵀ` and `Aᵀ`), so its float error scales with the sum of
/// |weight·input| products that feed an output, not with the output itself (which may cancel to
/// ~0). Each output must be within 1e-5 × (that sum + 1): about 100 float ulps of the sum,
/// far above what correct code shows (~1e-7) and far below any indexing mistake (which is off
/// by a whole product, ≥ 1e-2 of the sum for these random values).
final class WinogradTests: XCTestCase {
    struct Case {
        var channels, height, width, filters, pad: Int

        var outHeight: Int { height + 2 * pad - 2 }
        var outWidth: Int { width + 2 * pad - 2 }
        var geometry: ConvolutionGeometry {
            ConvolutionGeometry(channels: channels, height: height, width: width, filters: filters, outHeight: outHeight,
                                outWidth: outWidth, size: 3, strideX: 1, strideY: 1, pad: pad)
        }
    }

    static let cases: [Case] = [
        Case(channels: 1, height: 1, width: 1, filters: 4, pad: 1),     // 1×1 image, one partial tile
        Case(channels: 3, height: 4, width: 4, filters: 2, pad: 1),     // exactly one tile
        Case(channels: 2, height: 5, width: 7, filters: 3, pad: 1),     // odd sizes, partial tiles
        Case(channels: 4, height: 13, width: 13, filters: 8, pad: 1),   // yolov3's 13×13 grid
        Case(channels: 3, height: 9, width: 11, filters: 4, pad: 0),    // no padding
        Case(channels: 2, height: 6, width: 3, filters: 2, pad: 2),     // more padding than darknet uses
        Case(channels: 67, height: 10, width: 9, filters: 33, pad: 1),  // many channels
        Case(channels: 3, height: 3, width: 3, filters: 1, pad: 0),     // 1×1 output
        // Wide rows: the input split and output merge take 8 tiles at a time, then one by one.
        Case(channels: 3, height: 6, width: 37, filters: 4, pad: 1),
        Case(channels: 2, height: 5, width: 70, filters: 3, pad: 0),
        Case(channels: 2, height: 4, width: 45, filters: 2, pad: 2),
        // Streamed: filters past one block of 16 (a partial last block), channels past a
        // multiple of 4, yolov3-tiny's 13×13 grid.
        Case(channels: 21, height: 13, width: 13, filters: 68, pad: 1),
        // Packed kernel: channels past one K block of 512 (`PackedGEMM.kBlock`), filters in
        // whole panels of 4 but not blocks of 16.
        Case(channels: 515, height: 7, width: 6, filters: 12, pad: 1),
    ]

    /// How the weights are held: transformed (packed for the kernel, or plain for cblas), or streamed.
    enum Held: CaseIterable { case packed, plain, streamed }

    /// The ways every case runs here: packed and streamed only where OpenBLAS's kernel is available.
    static var held: [Held] { PackedGEMM.kernel == nil ? [.plain] : Held.allCases }

    /// Whole, in tiny passes of tile rows and in bands (each band's three phases on one
    /// worker), against the naive convolution (`Blocking.winogradCuts`).
    func testEveryCutMatchesNaiveConvolution() {
        for blocking in Blocking.winogradCuts { checkMatchesNaiveConvolution(blocking) }
    }

    /// Bands give the bits of the passes they replace (within rounding where OpenBLAS's kernel
    /// does not ignore the cut: `BandBits`), with the activation, the residual, a fused pool and
    /// two images, on 1, 2 and 3 workers; and the same bits on 1 worker as on 3.
    func testBandsGiveThePassesBits() {
        var generator = SplitMix64(state: 23)
        for held in Self.held {
            for c in [Case(channels: 5, height: 34, width: 18, filters: 8, pad: 1), Case(channels: 21, height: 70, width: 13, filters: 20, pad: 1)] {
                let images = 2, outCount = 2 * c.filters * c.outHeight * c.outWidth
                let input = (0..<(images * c.channels * c.height * c.width)).map { _ in generator.uniform(-1, 1) }
                let weights = (0..<(c.filters * c.channels * 9)).map { _ in generator.uniform(-1, 1) }
                let biases = (0..<c.filters).map { _ in generator.uniform(-1, 1) }
                let residual = (0..<outCount).map { _ in generator.uniform(-1, 1) }
                let pools = held != .streamed && c.outHeight % 2 == 0 && c.outWidth % 2 == 0 ? [false, true] : [false]
                for pooled in pools {
                    let expected = run(c, held, images: images, input: input, weights: weights, biases: biases, activation: .leaky,
                                       residual: pooled ? nil : residual, blocking: .passesOnly, pooled: pooled)
                    for (rows, threads) in [(1, 1), (2, 2), (4, 3)] {
                        let banded = run(c, held, images: images, input: input, weights: weights, biases: biases,
                                         activation: .leaky, residual: pooled ? nil : residual, blocking: .bands(of: rows),
                                         threads: threads, pooled: pooled)
                        BandBits.check(banded, against: expected,
                                       "\(held) \(c) pooled \(pooled), bands of \(rows) tile rows, \(threads) threads")
                    }
                    let alone = run(c, held, images: images, input: input, weights: weights, biases: biases, activation: .leaky,
                                    residual: pooled ? nil : residual, blocking: .bands(of: 2), threads: 1, pooled: pooled)
                    let shared = run(c, held, images: images, input: input, weights: weights, biases: biases, activation: .leaky,
                                     residual: pooled ? nil : residual, blocking: .bands(of: 2), threads: 3, pooled: pooled)
                    XCTAssertEqual(alone.map(\.bitPattern), shared.map(\.bitPattern),
                                   "\(held) \(c) pooled \(pooled), bands of 2 tile rows: 1 and 3 workers, on every kernel")
                }
            }
        }
    }

    /// The default: 104×104 and larger grids in an even number of bands of at most 4 tile rows,
    /// fewer rows where four bands' V and M would not fit a pass's floats; 52×52 (13 tile rows,
    /// no even shares for two workers) and smaller in passes.
    func testBandCount() {
        func bands(_ side: Int, _ channels: Int, streamed: Bool = false) -> Int? {
            Winograd.bandCount(Case(channels: channels, height: side, width: side, filters: 2 * channels, pad: 1).geometry,
                               streamed: streamed, Blocking())
        }
        XCTAssertEqual(bands(104, 32), 8)    // 26 tile rows: 7 bands of 4 rows, 8 for two workers
        XCTAssertEqual(bands(104, 32, streamed: true), 8)
        XCTAssertEqual(bands(208, 16), 14)   // 52 tile rows: 13 bands of 4
        XCTAssertEqual(bands(208, 32), 18)   // 36·96·52 floats a tile row: 3 rows fit a quarter pass
        XCTAssertEqual(bands(208, 512), 52)  // not even one row fits: one row a band
        XCTAssertEqual(bands(64, 8), 4)
        XCTAssertNil(bands(52, 8))
        XCTAssertNil(bands(13, 8))
    }

    func checkMatchesNaiveConvolution(_ blocking: Blocking) {
        var generator = SplitMix64(state: 11)
        for held in Self.held {
            // Streamed weights take whole panels of 4 filters (`Winograd.streams`).
            for c in Self.cases where held != .streamed || c.filters % 4 == 0 {
                for images in [1, 2] {
                    NaiveConvolutionCheck.check(geometry: c.geometry, stride: 1, images: images, generator: &generator,
                                                "\(held) \(c), \(blocking.winogradFloats) floats a pass") {
                        run(c, held, images: images, input: $0, inputStride: $1, outputStride: $2, weights: $3, biases: $4,
                            blocking: blocking)
                    }
                }
            }
        }
    }

    /// The epilogue: the activation after the bias, then the residual (the fused shortcut).
    func testActivationAndResidualAreApplied() {
        var generator = SplitMix64(state: 3)
        let c = Case(channels: 2, height: 6, width: 5, filters: 4, pad: 1)
        let input = (0..<(2 * 6 * 5)).map { _ in generator.uniform(-1, 1) }
        let weights = (0..<(4 * 2 * 9)).map { _ in generator.uniform(-1, 1) }
        let biases: [Float] = [0.1, -0.2, 0.3, 0]
        let residual = (0..<(4 * 6 * 5)).map { _ in generator.uniform(-1, 1) }
        for held in Self.held {
            let linear = run(c, held, input: input, weights: weights, biases: biases)
            XCTAssertTrue(linear.contains { $0 < 0 })
            for activation in [Activation.leaky, .mish] {
                let applied = run(c, held, input: input, weights: weights, biases: biases, activation: activation)
                XCTAssertEqual(applied, linear.map { activation.value($0) }, "\(held) \(activation)")
                let added = run(c, held, input: input, weights: weights, biases: biases, activation: activation,
                                residual: residual)
                XCTAssertEqual(added, zip(applied, residual).map { $0 + $1 }, "\(held) \(activation) + residual")
            }
        }
    }

    /// With a pool to fill, each pair of finished output rows is pooled into it: the pool's
    /// bits are those of `Pool2x2` on the unpooled output, for one and two images and passes of
    /// a few tile rows.
    func testPooledOutputIsThePoolOfTheOutput() {
        var generator = SplitMix64(state: 19)
        for held in Self.held where held != .streamed {
            for c in [Case(channels: 5, height: 12, width: 20, filters: 6, pad: 1),
                      Case(channels: 3, height: 34, width: 18, filters: 4, pad: 1)] {
                for (images, floats) in [(1, Blocking().winogradFloats), (2, Blocking().winogradFloats), (2, 4000)] {
                    var blocking = Blocking()
                    blocking.winogradFloats = floats
                    let input = (0..<(images * c.channels * c.height * c.width)).map { _ in generator.uniform(-1, 1) }
                    let weights = (0..<(c.filters * c.channels * 9)).map { _ in generator.uniform(-1, 1) }
                    let biases = (0..<c.filters).map { _ in generator.uniform(-1, 1) }
                    let full = run(c, held, images: images, input: input, weights: weights, biases: biases,
                                   activation: .leaky, blocking: blocking)
                    let pooled = run(c, held, images: images, input: input, weights: weights, biases: biases,
                                     activation: .leaky, blocking: blocking, pooled: true)
                    let (oh, ow) = (c.outHeight, c.outWidth)
                    var expected = [Float](repeating: 0, count: images * c.filters * oh / 2 * ow / 2)
                    for plane in 0..<(images * c.filters) {
                        for y in 0..<(oh / 2) {
                            full.withUnsafeBufferPointer { f in
                                expected.withUnsafeMutableBufferPointer { e in
                                    Pool2x2.poolRows(f.baseAddress! + plane * oh * ow + 2 * y * ow, width: ow,
                                                     into: e.baseAddress! + (plane * oh / 2 + y) * ow / 2)
                                }
                            }
                        }
                    }
                    XCTAssertEqual(pooled.map(\.bitPattern), expected.map(\.bitPattern), "\(held) \(c) \(images) images, \(floats)")
                }
            }
        }
    }

    /// The same bits on 1, 2, 3 and 8 workers: every product's call and every block of
    /// filters depend on the shape alone (68 filters: five blocks of 16, the last partial).
    func testAnyWorkerCountGivesTheSameBits() {
        var generator = SplitMix64(state: 5)
        let c = Case(channels: 37, height: 13, width: 13, filters: 68, pad: 1)
        let input = (0..<(c.channels * 13 * 13)).map { _ in generator.uniform(-1, 1) }
        let weights = (0..<(c.filters * c.channels * 9)).map { _ in generator.uniform(-1, 1) }
        let biases = (0..<c.filters).map { _ in generator.uniform(-1, 1) }
        for held in Self.held {
            let outputs = [1, 2, 3, 8].map { threads in
                run(c, held, input: input, weights: weights, biases: biases, activation: .leaky, threads: threads)
            }
            for (index, output) in outputs.enumerated().dropFirst() {
                XCTAssertEqual(output.map(\.bitPattern), outputs[0].map(\.bitPattern), "\(held), run \(index)")
            }
        }
    }

    /// Each image of a batch gets the bits it gets alone, whether the batch shares passes (small
    /// images) or runs image by image in blocks of tile rows, on 1 and 2 workers.
    func testBatchGivesEachImageItsOwnBits() {
        var generator = SplitMix64(state: 41)
        for c in [Case(channels: 16, height: 9, width: 9, filters: 8, pad: 1), Case(channels: 24, height: 36, width: 36, filters: 16, pad: 1)] {
            let plane = c.channels * c.height * c.width, outPlane = c.filters * c.outHeight * c.outWidth
            let images = 3
            let input = (0..<(images * plane)).map { _ in generator.uniform(-1, 1) }
            let weights = (0..<(c.filters * c.channels * 9)).map { _ in generator.uniform(-1, 1) }
            let biases = (0..<c.filters).map { _ in generator.uniform(-1, 1) }
            for floats in [Blocking().winogradFloats, 20_000] {
                var blocking = Blocking()
                blocking.winogradFloats = floats
                for held in Self.held {
                    for threads in [1, 2] {
                        let batch = run(c, held, images: images, input: input, weights: weights, biases: biases,
                                        activation: .leaky, blocking: blocking, threads: threads)
                        for b in 0..<images {
                            let alone = run(c, held, input: Array(input[(b * plane)..<((b + 1) * plane)]), weights: weights,
                                            biases: biases, activation: .leaky, blocking: blocking, threads: threads)
                            XCTAssertEqual(Array(batch[(b * outPlane)..<((b + 1) * outPlane)]).map(\.bitPattern),
                                           alone.map(\.bitPattern), "\(held) \(c) image \(b), \(floats), \(threads) threads")
                        }
                    }
                }
            }
        }
    }

    /// Passes fit `Blocking.winogradFloats`, are as few as that allows, and share the tile rows
    /// evenly (a short last pass would make thin products); a whole batch shares a pass when it fits.
    func testBlockingTakesFewEvenPasses() {
        for floats in [1, 3000, 100_000, Blocking().winogradFloats] {
            var blocking = Blocking()
            blocking.winogradFloats = floats
            for (channels, filters) in [(3, 5), (32, 64), (128, 256), (512, 1024)] {
                for tileRows in [1, 2, 7, 13, 19, 25, 52] {
                    let columns = tileRows + 1
                    let c = Case(channels: channels, height: tileRows * 4, width: columns * 4, filters: filters, pad: 1)
                    let perRow = Winograd.positions * (channels + filters) * columns
                    let label = "\(channels)→\(filters) \(tileRows) rows, block \(floats)"
                    let pass = Winograd.blocking(c.geometry, images: 1, streamed: false, blocking)
                    let most = max(1, min(tileRows, floats / perRow))
                    XCTAssertLessThanOrEqual(pass.tileRows, most, label)
                    let passes = (tileRows + pass.tileRows - 1) / pass.tileRows
                    XCTAssertEqual(passes, (tileRows + most - 1) / most, label)
                    XCTAssertEqual(pass.tileRows, (tileRows + passes - 1) / passes, label)
                }
            }
        }
        let small = Case(channels: 16, height: 16, width: 16, filters: 16, pad: 1)
        XCTAssertEqual(Winograd.blocking(small.geometry, images: 3, streamed: false, Blocking()).images, 3)
    }

    /// `Winograd.forward` on `images` CHW images `inputStride` floats apart (default: packed),
    /// outputs `outputStride` apart; with `pooled`, returns the pooled output instead.
    private func run(_ c: Case, _ held: Held, images: Int = 1, input: [Float], inputStride: Int? = nil,
                     outputStride: Int? = nil, weights: [Float], biases: [Float], activation: Activation = .linear,
                     residual: [Float]? = nil, blocking: Blocking = Blocking(), threads: Int = 2,
                     pooled: Bool = false) -> [Float] {
        let kernel = held == .plain ? nil : PackedGEMM.kernel
        let context = KernelContext(threads: threads, packed: kernel, blocking: blocking)
        let g = c.geometry
        let (inPlane, outPlane) = (c.height * c.width, c.outHeight * c.outWidth)
        var prepared = weights
        if held == .streamed {
            Winograd.reorderPanels(&prepared, filters: c.filters, channels: c.channels, threads: threads)
        } else {
            prepared = weights.withUnsafeBufferPointer {
                Winograd.transformWeights($0, filters: c.filters, channels: c.channels, packed: kernel, threads: threads)
            }
        }
        let outStride = outputStride ?? c.filters * outPlane
        var output = [Float](repeating: .nan, count: images * outStride)
        var pool = [Float](repeating: .nan, count: images * c.filters * outPlane / 4)
        var workspace = [Float](repeating: .nan, count: Winograd.workspaceCount(g, images: images, streamed: held == .streamed,
                                                                                blocking: blocking))
        var timer: PhaseTimer? = nil
        input.withUnsafeBufferPointer { i in
            output.withUnsafeMutableBufferPointer { o in
                workspace.withUnsafeMutableBufferPointer { w in
                    prepared.withUnsafeBufferPointer { u in
                        biases.withUnsafeBufferPointer { b in
                            (residual ?? []).withUnsafeBufferPointer { r in
                                pool.withUnsafeMutableBufferPointer { p in
                                    var inputView = TensorView(i.baseAddress!, channels: c.channels, height: c.height, width: c.width)
                                    (inputView.imageStride, inputView.channelStride) = (inputStride ?? c.channels * inPlane, inPlane)
                                    var outputView = MutableTensorView(o.baseAddress!, channels: c.filters, height: c.outHeight,
                                                                       width: c.outWidth)
                                    (outputView.imageStride, outputView.channelStride) = (outStride, outPlane)
                                    var pooledView = MutableTensorView(p.baseAddress!, channels: c.filters, height: c.outHeight / 2,
                                                                       width: c.outWidth / 2)
                                    pooledView.imageStride = c.filters * outPlane / 4
                                    let held: Winograd.Weights = held == .streamed ? .streamed(u.baseAddress!, kernel: kernel!)
                                        : .transformed(u.baseAddress!, kernel: kernel)
                                    Winograd.forward(g, input: inputView, images: images, weights: held, output: outputView,
                                                     epilogue: Epilogue(biases: b.baseAddress!, activation: activation,
                                                                        residual: residual == nil ? nil : r.baseAddress),
                                                     pooled: pooled ? pooledView : nil, workspace: w.baseAddress!,
                                                     context: context, timer: &timer)
                                }
                            }
                        }
                    }
                }
            }
        }
        return pooled ? pool : output
    }
}
