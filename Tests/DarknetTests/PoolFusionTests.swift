import XCTest
@testable import Darknet

/// 2×2 stride-2 `[maxpool]` layers computed by the convolution before them (`Network.fusedPools`):
/// the pooled rows, the Winograd output transform and im2col bands that pool, and whole networks
/// whose fused outputs must be the bits of the layers run apart.
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

    /// `poolRows` on each pair of rows gives `Maxpool.forward`'s rows (padding 0 and 1, widths
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
                                     outputShape: pool.outputShape(input: shape)!)
                    }
                    pooled.withUnsafeMutableBufferPointer { o in
                        for row in 0..<(shape.channels * height / 2) {
                            Maxpool.poolRows(i.baseAddress! + 2 * row * width, width: width, into: o.baseAddress! + row * width / 2)
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

    /// The pooled filter-major output transform gives the pool of the plain output, bit for bit:
    /// F(4×4) and F(2×2), one image and two, whole and blocked passes, partial tiles.
    func testWinogradPoolsItsOutputRows() {
        let saved = Winograd.blockFloats
        defer { Winograd.blockFloats = saved }
        var generator = SplitMix64(state: 7)
        // (channels, height, width, filters, pad): even outputs only.
        let cases = [(3, 4, 4, 2, 1), (2, 6, 10, 3, 1), (3, 8, 20, 4, 0), (5, 26, 26, 9, 1), (21, 14, 14, 70, 1),
                     (3, 6, 38, 4, 1), (67, 10, 18, 33, 1)]
        let pool = Maxpool(size: 2, stride: 2, padding: 1)
        for blockFloats in [saved, 3000] {
            Winograd.blockFloats = blockFloats
            for variant in [Winograd.Variant.f4, .f2] {
                for (channels, height, width, filters, pad) in cases {
                    for batch in [1, 2] {
                        let (outHeight, outWidth) = (height + 2 * pad - 2, width + 2 * pad - 2)
                        let spatial = outHeight * outWidth
                        let input = (0..<(batch * channels * height * width)).map { _ in generator.uniform(-1, 1) }
                        let weights = (0..<(filters * channels * 9)).map { _ in generator.uniform(-1, 1) }
                        let biases = (0..<filters).map { _ in generator.uniform(-1, 1) }
                        let transformed = weights.withUnsafeBufferPointer {
                            Winograd.transformWeights(variant, $0, filters: filters, channels: channels, orientation: .filterMajor)
                        }
                        // Image-major input, channel-major output (as `Network` keeps a batch).
                        func run(pooling: Bool) -> (output: [Float], pooled: [Float]) {
                            var workspace = [Float](repeating: .nan, count: Winograd.workspaceCount(
                                variant, channels: channels, filters: filters, outHeight: outHeight, outWidth: outWidth, batch: batch))
                            var output = [Float](repeating: .nan, count: batch * filters * spatial)
                            var pooled = [Float](repeating: .nan, count: batch * filters * spatial / 4)
                            var timer: PhaseTimer? = nil
                            workspace.withUnsafeMutableBufferPointer { w in
                                output.withUnsafeMutableBufferPointer { o in
                                    pooled.withUnsafeMutableBufferPointer { p in
                                        let destination = pooling ? Winograd.PooledOutput(
                                            base: p.baseAddress!, imageStride: spatial / 4, channelStride: batch * spatial / 4) : nil
                                        Winograd.forward(variant, input: input, channels: channels, height: height, width: width,
                                                         pad: pad, output: o.baseAddress!, filters: filters, outHeight: outHeight,
                                                         outWidth: outWidth, transformed: transformed, biases: biases,
                                                         activation: .leaky, workspace: w.baseAddress!, batch: batch,
                                                         inputStride: channels * height * width, outputStride: spatial,
                                                         inputChannelStride: height * width, outputChannelStride: batch * spatial,
                                                         pooled: destination, timer: &timer)
                                    }
                                }
                            }
                            return (output, pooled)
                        }
                        let plain = run(pooling: false).output
                        let (untouched, pooled) = run(pooling: true)
                        let label = "\(variant) \(channels)×\(height)×\(width) → \(filters), pad \(pad), batch \(batch), block \(blockFloats)"
                        // Channel-major output: filters × batch planes, each pooled on its own.
                        let stacked = TensorShape(channels: filters * batch, height: outHeight, width: outWidth)
                        var expected = [Float](repeating: .nan, count: pooled.count)
                        plain.withUnsafeBufferPointer { p in
                            expected.withUnsafeMutableBufferPointer {
                                pool.forward(input: p.baseAddress!, inputShape: stacked, output: $0.baseAddress!,
                                             outputShape: pool.outputShape(input: stacked)!)
                            }
                        }
                        XCTAssertEqual(pooled.map(\.bitPattern), expected.map(\.bitPattern), label)
                        XCTAssertTrue(untouched.allSatisfy(\.isNaN), "\(label): the plain output was written")
                    }
                }
            }
        }
    }

    /// yolov3-tiny at 416 under `auto`: its stride-2 pools after layers 0, 2, 4 and 6 are fused
    /// (layer 8's output is also routed, so pool 9 runs apart; pool 11 has stride 1), and the
    /// `[yolo]` outputs are the bits of a pass that runs every layer apart.
    func testYolov3TinyFusesItsStrideTwoPools() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3-tiny"), width: 416, height: 416)
        let bytes = SyntheticWeights.bytes(for: model, seed: 1)
        let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
        let network = try Network(model: model, weights: weights)
        XCTAssertEqual(network.fusedPools.indices.filter { network.fusedPools[$0] }, [1, 3, 5, 7])
        XCTAssertEqual(network.methods[0], .im2col)  // in bands
        let input = SyntheticWeights.input(model.inputShape)
        let fused = try network.forward(input).map { $0.values.map(\.bitPattern) }
        let apart = try network.forward(input, observer: { _, _ in }).map { $0.values.map(\.bitPattern) }
        XCTAssertEqual(fused, apart)
    }

    /// Random cfgs of 3×3 and 1×1 convolutions, 2×2 stride-2 pools and single-source routes
    /// (which keep some convolutions' outputs read twice, so their pools run apart): unobserved
    /// passes (pools fused) give the bits of observed ones (every layer run apart), for every
    /// method (Winograd both ways round, streamed, im2col in whole matrices and in bands), one
    /// image and two.
    func testFusedPoolsGiveTheSameOutputs() throws {
        let saved = (Im2colBands.bandFloats, Im2colBands.minimumColumns)
        defer { (Im2colBands.bandFloats, Im2colBands.minimumColumns) = saved }
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
            (Im2colBands.bandFloats, Im2colBands.minimumColumns) = trial % 2 == 0 ? saved : (1 << 12, 8)
            for algorithm in [ConvolutionAlgorithm.im2col, .winograd, .winogradF2, .winogradF2Streamed] {
                for batch in [1, 2] {
                    let network = try Network(model: model, weights: weights, algorithm: algorithm, batch: batch)
                    for (index, isFused) in network.fusedPools.enumerated() where isFused {
                        fused[network.methods[index - 1]!, default: 0] += 1
                    }
                    let input = Array([[Float]](repeating: image, count: batch).joined())
                    let together = try network.forward(input).map { $0.values.map(\.bitPattern) }
                    let apart = try network.forward(input, observer: { _, _ in }).map { $0.values.map(\.bitPattern) }
                    let differing = zip(together.joined(), apart.joined()).filter { $0 != $1 }.count
                    XCTAssertEqual(differing, 0, "trial \(trial), \(algorithm), batch \(batch):\n\(text)")
                }
            }
        }
        for method in [ConvolutionMethod.im2col, .winograd, .winogradF2] {
            XCTAssertGreaterThanOrEqual(fused[method, default: 0], 8, "\(method): the random cfgs should fuse pools")
        }
        XCTAssertNil(fused[.winogradF2Streamed], "streamed products are never pooled")
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
