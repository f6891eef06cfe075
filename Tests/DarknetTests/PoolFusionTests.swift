import TestSupport
import XCTest
@testable import Darknet
import Kernels

/// 2×2 stride-2 `[maxpool]` layers computed by the convolution before them (`Network.fusedPools`):
/// the pooled rows and whole networks whose fused outputs must be the bits of the layers run
/// apart (the routes that pool are tested in `WinogradTests` and `PreparedConvolutionTests`).
final class PoolFusionTests: XCTestCase {
    /// Mostly −0, +0 and negative values, some NaNs (skipped by `>`) and a few positive ones:
    /// the first of equal values is kept, so the sign of a pooled zero shows the tap order.
    static func values(_ count: Int, _ generator: inout SplitMix64) -> [Float] {
        (0..<count).map { _ -> Float in
            switch generator.next() % 8 {
            case 0, 1: return -0.0
            case 2, 3: return 0.0
            case 4: return .nan
            case 5: return generator.uniform(0, 1)
            default: return generator.uniform(-2, 0)
            }
        }
    }

    /// `Pool2x2.poolRows` on each pair of rows gives `Maxpool.forward`'s rows (padding 0 and 1, widths
    /// below, at and past the 8-wide vector).
    func testPoolRowsAreTheForwardPool() {
        var generator = SplitMix64(state: 3)
        for padding in [0, 1] {
            let pool = Maxpool(size: 2, stride: 2, padding: padding)
            for (height, width) in [(2, 2), (4, 16), (6, 18), (2, 38), (4, 52)] {
                let shape = TensorShape(channels: 16, height: height, width: width)
                XCTAssertTrue(pool.halves(shape))
                XCTAssertEqual(pool.outputShape(input: shape), TensorShape(channels: 16, height: height / 2, width: width / 2))
                let input = Self.values(shape.count, &generator)
                var expected = [Float](repeating: .nan, count: shape.count / 4)
                var pooled = [Float](repeating: .nan, count: shape.count / 4)
                input.withUnsafeBufferPointer { i in
                    expected.withUnsafeMutableBufferPointer {
                        pool.forward(input: i.baseAddress!, inputShape: shape, output: $0.baseAddress!,
                                     outputShape: pool.outputShape(input: shape)!, threads: 2)
                    }
                    pooled.withUnsafeMutableBufferPointer { o in
                        for row in 0..<(shape.channels * height / 2) {
                            Pool2x2.poolRows(i.baseAddress! + 2 * row * width, width: width, into: o.baseAddress! + row * width / 2)
                        }
                    }
                }
                XCTAssertEqual(pooled.map(\.bitPattern), expected.map(\.bitPattern), "padding \(padding), \(height)×\(width)")
            }
        }
    }

    /// Only pools that halve an even input from offset 0 can be fused.
    func testHalvesOnlyExactHalvingPools() {
        let even = TensorShape(channels: 3, height: 26, width: 26)
        XCTAssertTrue(Maxpool(size: 2, stride: 2, padding: 1).halves(even))
        XCTAssertTrue(Maxpool(size: 2, stride: 2, padding: 0).halves(even))
        XCTAssertFalse(Maxpool(size: 2, stride: 2, padding: 2).halves(even))           // offset −1
        XCTAssertFalse(Maxpool(size: 2, stride: 1, padding: 1).halves(even))           // yolov3-tiny's 13×13 pool
        XCTAssertFalse(Maxpool(size: 3, stride: 2, padding: 2).halves(even))
        XCTAssertFalse(Maxpool(size: 2, stride: 2, padding: 1, strideY: 1).halves(even))
        XCTAssertFalse(Maxpool(size: 2, stride: 2, padding: 1, depthChannels: 1).halves(even))
        XCTAssertFalse(Maxpool(size: 2, stride: 2, padding: 1).halves(TensorShape(channels: 3, height: 13, width: 26)))
        XCTAssertFalse(Maxpool(size: 2, stride: 2, padding: 1).halves(TensorShape(channels: 3, height: 26, width: 13)))
    }

    /// yolov3-tiny at 416 under `auto`: its stride-2 pools after layers 0, 2, 4 and 6 are fused
    /// (layer 8's output is also routed, so pool 9 runs apart; pool 11 has stride 1), and the
    /// `[yolo]` outputs are the bits of a pass that runs every layer apart (to rounding where
    /// OpenBLAS's kernel does not ignore the cut: the two passes cut some products differently).
    func testYolov3TinyFusesItsStrideTwoPools() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3-tiny"), width: 416, height: 416)
        let bytes = SyntheticWeights.bytes(for: model, seed: 1)
        let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
        let network = try Network(model: model, weights: weights)
        XCTAssertEqual(network.fusedPools.indices.filter { network.fusedPools[$0] }, [1, 3, 5, 7])
        XCTAssertEqual(network.methods[0], .im2colBands)
        let input = SyntheticWeights.input(model.inputShape)
        let fused = try network.forward(input).map(\.values)
        let apart = try network.forward(input, observer: { _, _ in }).map(\.values)
        XCTAssertEqual(fused.count, apart.count)
        for (f, a) in zip(fused, apart) { Tolerance.checkBits(f, a, exact: BLASCore.ignoresTheCut, "a [yolo] output") }
    }

    /// Random cfgs of 3×3 and 1×1 convolutions, 2×2 stride-2 pools and single-source routes
    /// (which keep some convolutions' outputs read twice, so their pools run apart): unobserved
    /// passes (pools fused) give the bits of observed ones (every layer run apart), for every
    /// method (Winograd transformed at load and streamed, im2col in whole matrices and in
    /// bands), one image and two, with OpenBLAS's own kernels and (odd trials) without.
    func testFusedPoolsGiveTheSameOutputs() throws {
        var generator = SplitMix64(state: 31)
        var fused: [ConvolutionMethod: Int] = [:]
        for trial in 0..<40 {
            let text = Self.randomCfg(&generator)
            let model = try ModelDescription(text: text)
            for batch in [1, 2] {
                MemoryPlanTests.check(MemoryPlan(layers: model.layers, batch: batch), model.layers, "trial \(trial):\n\(text)",
                                      batch: batch)
            }
            let bytes = SyntheticWeights.bytes(for: model, seed: UInt64(trial))
            let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
            let image = SyntheticWeights.input(model.inputShape)
            // Bands of a few rows every other trial (none on these small images otherwise).
            var blocking = Blocking()
            if trial % 2 == 1 { (blocking.bandFloats, blocking.bandMinimumColumns) = (1 << 12, 8) }
            for algorithm in [ConvolutionAlgorithm.im2col, .winograd, .winogradStreamed] {
                // Odd trials also without OpenBLAS's own kernels (cblas_sgemm only, as on other CPUs and BLAS).
                for packed in trial % 2 == 1 ? [true, false] : [true] {
                    for batch in [1, 2] {
                        let options = ExecutionOptions(threads: 2, convolutionAlgorithm: algorithm, usesPackedKernel: packed,
                                                       blocking: blocking)
                        let network = try Network(model: model, weights: weights, options: options, batch: batch)
                        for (index, isFused) in network.fusedPools.enumerated() where isFused {
                            fused[network.methods[index - 1]!, default: 0] += 1
                        }
                        let input = Array([[Float]](repeating: image, count: batch).joined())
                        let together = try network.forward(input).map { $0.values.map(\.bitPattern) }
                        let apart = try network.forward(input, observer: { _, _ in }).map { $0.values.map(\.bitPattern) }
                        let differing = zip(together.joined(), apart.joined()).filter { $0 != $1 }.count
                        XCTAssertEqual(differing, 0, "trial \(trial), \(algorithm), batch \(batch), packed \(packed):\n\(text)")
                    }
                }
            }
        }
        for method in [ConvolutionMethod.im2colBands, .winograd] {
            XCTAssertGreaterThanOrEqual(fused[method, default: 0], 8, "\(method): the random cfgs should fuse pools")
        }
        XCTAssertNil(fused[.winogradStreamed], "streamed products are never pooled")
        XCTAssertNil(fused[.im2col], "whole im2col matrices are never pooled")
        XCTAssertNil(fused[.gemm], "1×1 layers are never pooled")
    }

    static func randomCfg(_ generator: inout SplitMix64) -> String {
        let size = [16, 20, 24][Int(generator.next() % 3)]
        var text = "[net]\nwidth=\(size)\nheight=\(size)\nchannels=3\n"
        var sizes: [Int] = []
        var current = size
        for index in 0..<(3 + Int(generator.next() % 7)) {
            let choice = index == 0 ? 0 : generator.next() % 5
            if choice == 2 || choice == 3, current % 2 == 0, current > 2 {
                text += "[maxpool]\nsize=2\nstride=2\n"
                current /= 2
            } else if choice == 4 {
                let source = Int(generator.next() % UInt64(index))
                text += "[route]\nlayers=\(source - index)\n"
                current = sizes[source]
            } else {
                let filters = 1 + Int(generator.next() % 24)
                let kernel = generator.next() % 4 == 0 ? 1 : 3
                text += "[convolutional]\nfilters=\(filters)\nsize=\(kernel)\npad=1\nactivation=leaky\nbatch_normalize=\(generator.next() % 2)\n"
            }
            sizes.append(current)
        }
        return text
    }
}
