@testable import Darknet
import XCTest

/// F(4×4, 3×3), F(2×2, 3×3) and the streamed F(2×2) against the naive convolution
/// (`ReferenceConvolution`, summed in Double).
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
    }

    static let cases: [Case] = [
        Case(channels: 1, height: 1, width: 1, filters: 1, pad: 1),     // 1×1 image, one partial tile
        Case(channels: 3, height: 4, width: 4, filters: 2, pad: 1),     // exactly one tile
        Case(channels: 2, height: 5, width: 7, filters: 3, pad: 1),     // odd sizes, partial tiles
        Case(channels: 4, height: 13, width: 13, filters: 5, pad: 1),   // yolov3's 13×13 grid
        Case(channels: 3, height: 9, width: 11, filters: 4, pad: 0),    // no padding
        Case(channels: 2, height: 6, width: 3, filters: 2, pad: 2),     // more padding than darknet uses
        Case(channels: 67, height: 10, width: 9, filters: 33, pad: 1),  // many channels
        Case(channels: 3, height: 3, width: 3, filters: 1, pad: 0),     // 1×1 output
        // Wide rows: the input split and output merge take 8 tiles at a time, then one by one.
        Case(channels: 3, height: 6, width: 37, filters: 4, pad: 1),
        Case(channels: 2, height: 5, width: 70, filters: 3, pad: 0),
        Case(channels: 2, height: 4, width: 45, filters: 2, pad: 2),
        // Streamed: filters past one block of 32 (a partial last block), channels past a
        // multiple of 4 (the transform's tail), yolov3-tiny's 13×13 grid. Tile-major: a block
        // of 64 filters and one of 6 (16-filter vectors, the last one partial).
        Case(channels: 21, height: 13, width: 13, filters: 70, pad: 1),
        // More tiles than `tileMajorMaximumTiles` under F(2×2) (169): tile-major weights there
        // run without the padded rows and workspace scratch (weights prepared for a smaller image).
        Case(channels: 5, height: 26, width: 26, filters: 20, pad: 1),
        // Packed kernel: channels past one K block of 512 (`PackedGEMM.kBlock`), filters in
        // whole panels of 4 but not blocks of 16.
        Case(channels: 515, height: 7, width: 6, filters: 12, pad: 1),
    ]

    /// The methods every case runs through: both variants in every orientation (`.packed` where
    /// OpenBLAS's kernel is available here, `PackedGEMM`), and the streamed F(2×2).
    static let methods: [(variant: Winograd.Variant, streamed: Bool, orientation: Winograd.Orientation)] = [
        (.f4, false, .filterMajor), (.f4, false, .tileMajor), (.f2, false, .filterMajor), (.f2, false, .tileMajor),
        (.f2, true, .filterMajor),
    ] + (PackedGEMM.kernel == nil ? [] : [(.f4, false, .packed), (.f2, false, .packed), (.f4, true, .packed)])

    func testMatchesNaiveConvolution() {
        checkMatchesNaiveConvolution()
    }

    /// Large images go through in blocks of tile rows (one image per pass): force tiny blocks.
    func testBlockedPassesMatchNaiveConvolution() {
        let saved = Winograd.blockFloats
        defer { Winograd.blockFloats = saved }
        for blockFloats in [1, 3000] {
            Winograd.blockFloats = blockFloats
            checkMatchesNaiveConvolution()
        }
    }

    func checkMatchesNaiveConvolution() {
        var generator = SplitMix64(state: 11)
        for (variant, streamed, orientation) in Self.methods {
        // Streamed F(4×4) takes whole panels of 4 filters (`Winograd.streamsPacked`).
        for c in Self.cases where !(streamed && variant == .f4) || c.filters % 4 == 0 {
            for batch in [1, 2] {
                let outHeight = c.height + 2 * c.pad - 2, outWidth = c.width + 2 * c.pad - 2
                let plane = c.channels * c.height * c.width, outPlane = c.filters * outHeight * outWidth
                // Images padded apart by 5 floats to prove the strides are honoured.
                let input = (0..<(batch * (plane + 5))).map { _ in generator.uniform(-1, 1) }
                let weights = (0..<(c.filters * c.channels * 9)).map { _ in generator.uniform(-1, 1) }
                let biases = (0..<c.filters).map { _ in generator.uniform(-1, 1) }
                let output = run(c, variant: variant, streamed: streamed, orientation: orientation, batch: batch, input: input,
                                 inputStride: plane + 5, outputStride: outPlane + 3, weights: weights, biases: biases)
                for b in 0..<batch {
                    let image = Array(input[(b * (plane + 5))..<(b * (plane + 5) + plane)])
                    let reference = ReferenceConvolution.forward(input: image, channels: c.channels, height: c.height,
                                                                 width: c.width, weights: weights, filters: c.filters,
                                                                 size: 3, stride: 1, pad: c.pad, groups: 1)
                    let magnitude = ReferenceConvolution.forward(input: image.map(abs), channels: c.channels,
                                                                 height: c.height, width: c.width, weights: weights.map(abs),
                                                                 filters: c.filters, size: 3, stride: 1, pad: c.pad, groups: 1)
                    for i in 0..<outPlane {
                        let expected = reference[i] + biases[i / (outHeight * outWidth)]
                        XCTAssertEqual(output[b * (outPlane + 3) + i], expected, accuracy: 1e-5 * (magnitude[i] + 1),
                                       "\(variant) streamed \(streamed) \(orientation) \(c) batch \(b) at \(i)")
                    }
                    XCTAssertTrue(output[b * (outPlane + 3) + outPlane].isNaN,
                                  "\(variant) streamed \(streamed) \(orientation) \(c): wrote past image \(b)")
                }
            }
        }
        }
    }

    func testActivationIsApplied() {
        var generator = SplitMix64(state: 3)
        let c = Case(channels: 2, height: 6, width: 5, filters: 3, pad: 1)
        let input = (0..<(2 * 6 * 5)).map { _ in generator.uniform(-1, 1) }
        let weights = (0..<(3 * 2 * 9)).map { _ in generator.uniform(-1, 1) }
        let biases: [Float] = [0.1, -0.2, 0.3]
        for orientation in [Winograd.Orientation.filterMajor, .tileMajor] {
            let linear = run(c, variant: .f4, orientation: orientation, batch: 1, input: input, inputStride: 0,
                             outputStride: 0, weights: weights, biases: biases)
            for activation in [Activation.leaky, .mish] {
                let applied = run(c, variant: .f4, orientation: orientation, batch: 1, input: input, inputStride: 0,
                                  outputStride: 0, weights: weights, biases: biases, activation: activation)
                XCTAssertTrue(linear.contains { $0 < 0 })
                XCTAssertEqual(applied, linear.map { activation.value($0) }, "\(orientation) \(activation)")
            }
        }
    }

    /// Tile-major's output transform does the filter-major one's operations on each output, so
    /// the two orientations differ only where OpenBLAS rounds the products' sums differently.
    /// Under F(2×2) with small integers every transformed value (multiples of ¼), product and sum
    /// is exact, so the outputs must be the same bits: a 13×13 grid, 40 → 70 filters (a block
    /// of 64 and a partial one), batch 2, leaky.
    func testTileMajorGivesFilterMajorBitsOnExactProducts() {
        var generator = SplitMix64(state: 17)
        let c = Case(channels: 40, height: 13, width: 13, filters: 70, pad: 1)
        let input = (0..<(2 * 40 * 13 * 13)).map { _ in Float(Int(generator.uniform(-4, 4))) }
        let weights = (0..<(70 * 40 * 9)).map { _ in Float(Int(generator.uniform(-4, 4))) }
        let biases = (0..<70).map { _ in generator.uniform(-1, 1) }
        let outputs = [Winograd.Orientation.filterMajor, .tileMajor].map { orientation in
            run(c, variant: .f2, orientation: orientation, batch: 2, input: input, inputStride: 40 * 13 * 13,
                outputStride: 70 * 13 * 13, weights: weights, biases: biases, activation: .leaky)
        }
        XCTAssertEqual(outputs[0].count, 2 * 70 * 13 * 13)
        XCTAssertTrue(zip(outputs[0], outputs[1]).allSatisfy { $0.bitPattern == $1.bitPattern })
    }

    /// Tile-major products take each image's tiles padded to a multiple of 4 (49 → 52 on a
    /// 13×13 grid under F(2×2)), and the pad tiles of V are zeroed every pass, so their rows of M
    /// are zeros even on a workspace full of NaNs (nothing stale reaches OpenBLAS's kernel).
    func testTileMajorPadsEachImageToFourRows() {
        XCTAssertEqual([1, 4, 25, 49, 52, 100, 121].map { Winograd.tileMajorImageRows(tiles: $0) }, [4, 4, 28, 52, 52, 100, 124])
        var generator = SplitMix64(state: 23)
        let (channels, filters, batch) = (6, 20, 2)
        let input = (0..<(batch * channels * 13 * 13)).map { _ in generator.uniform(-1, 1) }
        let weights = (0..<(filters * channels * 9)).map { _ in generator.uniform(-1, 1) }
        let transformed = weights.withUnsafeBufferPointer {
            Winograd.transformWeights(.f2, $0, filters: filters, channels: channels, orientation: .tileMajor)
        }
        let biases = [Float](repeating: 0, count: filters)
        var output = [Float](repeating: .nan, count: batch * filters * 13 * 13)
        var workspace = [Float](repeating: .nan, count: Winograd.workspaceCount(.f2, channels: channels, filters: filters,
                                                                                outHeight: 13, outWidth: 13, batch: batch))
        var timer: PhaseTimer? = nil
        Winograd.forward(.f2, input: input, channels: channels, height: 13, width: 13, pad: 1, output: &output,
                         filters: filters, outHeight: 13, outWidth: 13, transformed: transformed, biases: biases,
                         activation: .linear, workspace: &workspace, batch: batch, inputStride: channels * 13 * 13,
                         outputStride: filters * 13 * 13, orientation: .tileMajor, timer: &timer)
        // M follows V (16 positions × channels × 2 · 52 tiles); its rows are `tileMajorRowStride` apart.
        let tileCount = batch * 52, rowStride = Winograd.tileMajorRowStride(filters: filters, room: true)
        let m = 16 * channels * tileCount
        for position in 0..<16 {
            for b in 0..<batch {
                for tile in 49..<52 {
                    let row = m + (position * tileCount + b * 52 + tile) * rowStride
                    XCTAssertEqual(Array(workspace[row..<row + filters]), [Float](repeating: 0, count: filters),
                                   "position \(position) image \(b) pad tile \(tile)")
                }
                let first = m + (position * tileCount + b * 52) * rowStride
                XCTAssertTrue(workspace[first..<first + filters].contains { $0 != 0 && !$0.isNaN })
            }
        }
        XCTAssertFalse(output.contains { $0.isNaN })
    }

    /// The filter-major output transform takes up to 4 adjacent filters' rows of M together
    /// (`outputGroup`): each group fits the worker's scratch, the scratch grows with the tiles
    /// (a pass's shorter last block fits the slice sized for a full one), and yolov3's shapes
    /// get the groups the docs state.
    func testOutputGroupFitsItsScratch() {
        for variant in [Winograd.Variant.f2, .f4] {
            let perTile = variant.tile * variant.window + variant.tile * variant.tile
            var previous = 0
            for tiles in 1...4000 {
                let group = Winograd.outputGroup(variant, tileCount: tiles)
                let scratch = Winograd.outputScratchCount(variant, tileCount: tiles)
                XCTAssertTrue((1...Winograd.outputGroupMaximum).contains(group), "\(variant) \(tiles) tiles")
                XCTAssertLessThanOrEqual(group * perTile * tiles, scratch, "\(variant) \(tiles) tiles")
                XCTAssertGreaterThanOrEqual(scratch, previous, "\(variant) \(tiles) tiles")
                previous = scratch
            }
        }
        XCTAssertEqual(Winograd.outputGroup(.f4, tileCount: 169), 4)   // 52×52
        XCTAssertEqual(Winograd.outputGroup(.f2, tileCount: 169), 4)   // 26×26
        XCTAssertEqual(Winograd.outputGroup(.f4, tileCount: 676), 1)   // 208×208, 13 tile rows a pass
        XCTAssertEqual(Winograd.outputGroup(.f4, tileCount: 338), 2)   // 104×104, 13 tile rows a pass
        XCTAssertEqual(Winograd.outputGroup(.f4, tileCount: 300), 2)
    }

    /// Passes fit `blockFloats`, are as few as that allows, and share the tile rows evenly: a
    /// short last pass makes thin products (yolov3's 52×52 layers at 416 took 11 + 2 tile rows
    /// with an 8 MB block; their 26-tile products ran at about half the rate of 169-tile ones).
    func testBlockingTakesFewEvenPasses() {
        let saved = Winograd.blockFloats
        defer { Winograd.blockFloats = saved }
        for blockFloats in [1, 3000, 100_000, saved] {
            Winograd.blockFloats = blockFloats
            for variant in [Winograd.Variant.f2, .f4] {
                for (channels, filters) in [(3, 5), (32, 64), (128, 256), (512, 1024)] {
                    for tileRows in [1, 2, 7, 13, 19, 25, 52] {
                        let columns = tileRows + 1
                        let perRow = variant.positions * (channels + filters) * columns
                        let label = "\(variant) \(channels)→\(filters) \(tileRows) rows, block \(blockFloats)"
                        let pass = Winograd.blocking(variant, channels: channels, filters: filters, tileRows: tileRows,
                                                     tileColumns: columns, batch: 1)
                        XCTAssertEqual(pass.images, 1, label)
                        let most = max(1, min(tileRows, blockFloats / perRow))
                        XCTAssertLessThanOrEqual(pass.tileRows, most, label)
                        let passes = (tileRows + pass.tileRows - 1) / pass.tileRows
                        XCTAssertEqual(passes, (tileRows + most - 1) / most, label)
                        XCTAssertGreaterThan(tileRows - (passes - 1) * pass.tileRows, 0, label)
                        XCTAssertEqual(pass.tileRows, (tileRows + passes - 1) / passes, label)
                    }
                }
            }
        }
        // yolov3 at 416: the 52×52 layers (128 → 256) in one pass; 104×104 in 2 passes of 13 rows.
        XCTAssertEqual(Winograd.blocking(.f4, channels: 128, filters: 256, tileRows: 13, tileColumns: 13, batch: 1).tileRows, 13)
        XCTAssertEqual(Winograd.blocking(.f4, channels: 64, filters: 128, tileRows: 26, tileColumns: 26, batch: 1).tileRows, 13)
        // A whole batch goes through together when it fits.
        XCTAssertEqual(Winograd.blocking(.f2, channels: 16, filters: 16, tileRows: 4, tileColumns: 4, batch: 3).images, 3)
    }

    /// Transforming several filters' rows of M at once does, value by value, what one filter at
    /// a time does: the same bits on every case, 1 and 2 images, whole and blocked passes, with
    /// a fused residual. (The naive comparisons above check the values.)
    func testGroupedOutputTransformGivesOneFilterBits() {
        let saved = (Winograd.outputGroupFloats, Winograd.blockFloats)
        defer { (Winograd.outputGroupFloats, Winograd.blockFloats) = saved }
        var generator = SplitMix64(state: 23)
        for blockFloats in [saved.1, 3000] {
            Winograd.blockFloats = blockFloats
            for c in Self.cases {
                let outHeight = c.height + 2 * c.pad - 2, outWidth = c.width + 2 * c.pad - 2
                let inCount = c.channels * c.height * c.width, outCount = c.filters * outHeight * outWidth
                let input = (0..<(2 * inCount)).map { _ in generator.uniform(-1, 1) }
                let weights = (0..<(c.filters * c.channels * 9)).map { _ in generator.uniform(-1, 1) }
                let biases = (0..<c.filters).map { _ in generator.uniform(-1, 1) }
                let residual = (0..<(2 * outCount)).map { _ in generator.uniform(-1, 1) }
                for variant in [Winograd.Variant.f4, .f2] {
                    for batch in [1, 2] {
                        let outputs = [saved.0, 0].map { groupFloats in
                            Winograd.outputGroupFloats = groupFloats
                            return run(c, variant: variant, orientation: .filterMajor, batch: batch, input: input,
                                       inputStride: inCount, outputStride: outCount, weights: weights, biases: biases,
                                       activation: .leaky, residual: residual)
                        }
                        XCTAssertTrue(zip(outputs[0], outputs[1]).allSatisfy { $0.bitPattern == $1.bitPattern },
                                      "\(c) \(variant) batch \(batch) blockFloats \(blockFloats)")
                    }
                }
            }
        }
    }

    /// The streamed F(2×2) and F(4×4) give the same bits on 1, 2, 3 and 8 workers (their blocks
    /// of filters depend on the shape alone), here with 68 filters: three blocks of 32 or five of
    /// 16, the last one partial; so do the tile-major and packed products (one call per position
    /// and image).
    func testStreamedIsTheSameOnAnyWorkerCount() {
        let saved = GEMM.threads
        defer { GEMM.threads = saved }
        var generator = SplitMix64(state: 5)
        // 68 filters: whole panels of 4 for the streamed F(4×4), five blocks of 16 (the last partial).
        let c = Case(channels: 37, height: 13, width: 13, filters: 68, pad: 1)
        let input = (0..<(c.channels * 13 * 13)).map { _ in generator.uniform(-1, 1) }
        let weights = (0..<(c.filters * c.channels * 9)).map { _ in generator.uniform(-1, 1) }
        let biases = (0..<c.filters).map { _ in generator.uniform(-1, 1) }
        for (variant, streamed, orientation) in Self.methods where streamed || orientation != .filterMajor {
            var outputs: [[Float]] = []
            for threads in [1, 2, 3, 8] {
                GEMM.threads = threads
                outputs.append(run(c, variant: variant, streamed: streamed, orientation: orientation, batch: 1, input: input,
                                   inputStride: 0, outputStride: 0, weights: weights, biases: biases, activation: .leaky))
            }
            for (index, output) in outputs.enumerated().dropFirst() {
                XCTAssertTrue(zip(output, outputs[0]).allSatisfy { $0.bitPattern == $1.bitPattern },
                              "\(variant) streamed \(streamed) \(orientation), run \(index)")
            }
        }
    }

    /// Streamed F(4×4) with its tiles transformed straight into the kernel's layout
    /// (`Winograd.directPackingEnabled`) gives the bits of transforming into V and packing V:
    /// groups of 8 channels with a partial last one, K blocks of 512, tail panels of every
    /// width (49, 65 and 4 tiles an image), two images, and several passes of tile rows.
    func testStreamedDirectPackingIsPackingV() throws {
        guard PackedGEMM.kernel != nil else { throw XCTSkip("no packed kernel here: streamed F(4×4) does not run") }
        XCTAssertTrue(Winograd.packsTilesDirectly(channels: 64, images: 1))
        XCTAssertFalse(Winograd.packsTilesDirectly(channels: 63, images: 1), "V has no room for 8 workers' groups")
        let (savedDirect, savedBlock) = (Winograd.directPackingEnabled, Winograd.blockFloats)
        defer { (Winograd.directPackingEnabled, Winograd.blockFloats) = (savedDirect, savedBlock) }
        var generator = SplitMix64(state: 41)
        let cases = [
            (Case(channels: 70, height: 13, width: 13, filters: 20, pad: 1), 1),
            (Case(channels: 36, height: 13, width: 13, filters: 8, pad: 1), 2),
            (Case(channels: 515, height: 7, width: 6, filters: 12, pad: 1), 1),
            (Case(channels: 64, height: 52, width: 20, filters: 4, pad: 1), 1),
        ]
        for blockFloats in [savedBlock, 40_000] {
            Winograd.blockFloats = blockFloats
            for (c, batch) in cases {
                Winograd.directPackingEnabled = true
                XCTAssertTrue(Winograd.packsTilesDirectly(channels: c.channels, images: batch) || blockFloats != savedBlock,
                              "\(c) batch \(batch) does not take the direct path")
                let input = (0..<(batch * c.channels * c.height * c.width)).map { _ in generator.uniform(-1, 1) }
                let weights = (0..<(c.filters * c.channels * 9)).map { _ in generator.uniform(-1, 1) }
                let biases = (0..<c.filters).map { _ in generator.uniform(-1, 1) }
                var outputs: [[Float]] = []
                for direct in [true, false] {
                    Winograd.directPackingEnabled = direct
                    outputs.append(run(c, variant: .f4, streamed: true, orientation: .packed, batch: batch, input: input,
                                       inputStride: c.channels * c.height * c.width,
                                       outputStride: c.filters * c.height * c.width, weights: weights,
                                       biases: biases, activation: .leaky))
                }
                XCTAssertFalse(outputs[0].contains { $0.isNaN }, "\(c) batch \(batch): an output left unwritten")
                XCTAssertEqual(outputs[0].map(\.bitPattern), outputs[1].map(\.bitPattern), "\(c) batch \(batch), block \(blockFloats)")
            }
        }
    }

    /// Blocks cut into row parts (`Winograd.rowParts`: small weights, one image a pass) give the
    /// whole blocks' output: bit for bit through OpenBLAS's `Cooperlake` kernel, whose bits do
    /// not depend on where a call's columns are cut (`PackedGEMM`), else (`cblas_sgemm`, other
    /// kernels) within the naive tests' tolerance. One pass, then several passes of a few tile
    /// rows with parts of unequal size; a residual and an activation.
    func testRowPartsMatchWholeBlocks() {
        let (savedBytes, savedBlock) = (Winograd.partsWeightBytes, Winograd.blockFloats)
        defer { (Winograd.partsWeightBytes, Winograd.blockFloats) = (savedBytes, savedBlock) }
        var generator = SplitMix64(state: 29)
        let exact = PackedGEMM.kernel?.core == "COOPERLAKE"
        for (c, blockFloats) in [(Case(channels: 37, height: 30, width: 29, filters: 68, pad: 1), savedBlock),
                                 (Case(channels: 3, height: 42, width: 40, filters: 5, pad: 1), 9000)] {
            let (outHeight, outWidth) = (c.height + 2 * c.pad - 2, c.width + 2 * c.pad - 2)
            let input = (0..<(c.channels * c.height * c.width)).map { _ in generator.uniform(-1, 1) }
            let weights = (0..<(c.filters * c.channels * 9)).map { _ in generator.uniform(-1, 1) }
            let biases = (0..<c.filters).map { _ in generator.uniform(-1, 1) }
            let residual = (0..<(c.filters * outHeight * outWidth)).map { _ in generator.uniform(-1, 1) }
            let magnitude = ReferenceConvolution.forward(input: input.map(abs), channels: c.channels, height: c.height,
                                                         width: c.width, weights: weights.map(abs), filters: c.filters,
                                                         size: 3, stride: 1, pad: c.pad, groups: 1)
            Winograd.blockFloats = blockFloats
            for (variant, streamed, orientation) in Self.methods where !streamed && orientation != .tileMajor {
                let t = Winograd.tiles(variant, outHeight: outHeight, outWidth: outWidth)
                let pass = Winograd.blocking(variant, channels: c.channels, filters: c.filters, tileRows: t.rows,
                                             tileColumns: t.columns, batch: 1)
                XCTAssertGreaterThan(pass.tileRows, 2, "\(variant) \(c): passes of several tile rows")
                Winograd.partsWeightBytes = savedBytes
                XCTAssertEqual(Winograd.rowParts(positions: variant.positions, filters: c.filters, channels: c.channels,
                                                 tileRows: pass.tileRows), 2)
                var outputs: [[Float]] = []
                for limit in [savedBytes, 0] {
                    Winograd.partsWeightBytes = limit
                    outputs.append(run(c, variant: variant, orientation: orientation, batch: 1, input: input, inputStride: 0,
                                       outputStride: 0, weights: weights, biases: biases, activation: .leaky,
                                       residual: residual))
                }
                Self.assertRowParts(outputs[0], matchWhole: outputs[1], bitForBit: exact && orientation == .packed,
                                    magnitude: magnitude, "\(variant) \(orientation) \(c)")
            }
        }
    }

    /// Row parts' output against the whole passes': bit for bit when `bitForBit`, else each value
    /// within the naive tests' tolerance, 1e-5 × (`magnitude`, the sum of |weight·input| behind
    /// it, + 1). Shared with `WinogradStride2Tests`.
    static func assertRowParts(_ parts: [Float], matchWhole whole: [Float], bitForBit: Bool, magnitude: [Float],
                               _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(parts.count, whole.count, label, file: file, line: line)
        for (i, (part, value)) in zip(parts, whole).enumerated() {
            if bitForBit {
                XCTAssertEqual(part.bitPattern, value.bitPattern, "\(label) at \(i)", file: file, line: line)
            } else {
                XCTAssertEqual(part, value, accuracy: 1e-5 * (magnitude[i] + 1), "\(label) at \(i)", file: file, line: line)
            }
        }
    }

    /// The weight transform four kernels at a time (`SIMD4<Double>`) gives the bits of one
    /// kernel at a time, for both variants, on shapes whose kernel count leaves 1–3 kernels
    /// over in a block (and a plane smaller than one block of four), on 1 and 2 workers; and
    /// the one-kernel transform is `G g Gᵀ` (checked on F(2×2) against the matrices written out).
    func testWeightTransformFourAtATimeIsOneAtATime() {
        let saved = GEMM.threads
        defer { GEMM.threads = saved }
        var generator = SplitMix64(state: 11)
        for (filters, channels) in [(1, 3), (3, 5), (7, 37), (64, 33), (130, 31)] {
            let weights = (0..<(filters * channels * 9)).map { _ in generator.uniform(-2, 2) }
            for variant in [Winograd.Variant.f2, .f4] {
                let one = weights.withUnsafeBufferPointer {
                    Winograd.transformWeights(variant, $0, filters: filters, channels: channels, lanes: 1)
                }
                for threads in [1, 2] {
                    GEMM.threads = threads
                    let four = weights.withUnsafeBufferPointer {
                        Winograd.transformWeights(variant, $0, filters: filters, channels: channels, lanes: 4)
                    }
                    XCTAssertTrue(four.map(\.bitPattern) == one.map(\.bitPattern), "\(variant) \(filters)×\(channels), \(threads) workers")
                    // Packed: each position's filter-major plane as `PackedGEMM.packWeights` packs it.
                    if let kernel = PackedGEMM.kernel {
                        let packed = weights.withUnsafeBufferPointer {
                            Winograd.transformWeights(variant, $0, filters: filters, channels: channels, orientation: .packed)
                        }
                        var expected = one
                        let plane = filters * channels
                        for position in 0..<variant.positions {
                            expected.withUnsafeMutableBufferPointer { e in
                                one.withUnsafeBufferPointer { o in
                                    PackedGEMM.packWeights(kernel, o.baseAddress! + position * plane, rows: filters, k: channels,
                                                           ldw: channels, into: e.baseAddress! + position * plane)
                                }
                            }
                        }
                        XCTAssertTrue(packed.map(\.bitPattern) == expected.map(\.bitPattern),
                                      "\(variant) \(filters)×\(channels) packed, \(threads) workers")
                    }
                    // Tile-major: the same values, each position's plane transposed (channels × filters).
                    for lanes in [1, 4] {
                        let tileMajor = weights.withUnsafeBufferPointer {
                            Winograd.transformWeights(variant, $0, filters: filters, channels: channels, lanes: lanes,
                                                      orientation: .tileMajor)
                        }
                        let plane = filters * channels
                        let transposed = (0..<one.count).map { index in
                            let (position, rest) = index.quotientAndRemainder(dividingBy: plane)
                            let (c, f) = rest.quotientAndRemainder(dividingBy: filters)
                            return one[position * plane + f * channels + c].bitPattern
                        }
                        XCTAssertTrue(tileMajor.map(\.bitPattern) == transposed,
                                      "\(variant) \(filters)×\(channels) tile-major, \(lanes) lanes, \(threads) workers")
                    }
                }
            }
        }
        // F(2×2) by hand: U = G g Gᵀ, G = [[1,0,0],[½,½,½],[½,−½,½],[0,0,1]], in Double.
        let g = (0..<9).map { Double($0) * 0.37 - 1.1 }
        let G: [[Double]] = [[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]]
        let u = g.map(Float.init).withUnsafeBufferPointer { Winograd.transformWeights(.f2, $0, filters: 1, channels: 1, lanes: 1) }
        for r in 0..<4 {
            for c in 0..<4 {
                var sum = 0.0
                for i in 0..<3 { for j in 0..<3 { sum += G[r][i] * Double(Float(g[i * 3 + j])) * G[c][j] } }
                XCTAssertEqual(Double(u[r * 4 + c]), sum, accuracy: 1e-6, "U[\(r)][\(c)]")
            }
        }
    }

    /// darknet's `filters × C × 3 × 3` → `filters × 9 × C`.
    func testTapMajorOrder() {
        let weights = (0..<(2 * 3 * 9)).map(Float.init)
        var taps = weights
        Winograd.reorderTapMajor(&taps, filters: 2, channels: 3)
        for f in 0..<2 {
            for c in 0..<3 {
                for t in 0..<9 { XCTAssertEqual(taps[(f * 9 + t) * 3 + c], weights[(f * 3 + c) * 9 + t]) }
            }
        }
    }

    /// darknet's `filters × C × 3 × 3` → `filters/4 × 9 × C × 4`, and a panel's channel lands
    /// where `PackedGEMM.packWeights` puts it (every kernel packs whole panels of 4 filters).
    func testPanelOrder() throws {
        let (filters, channels) = (8, 3)
        let weights = (0..<(filters * channels * 9)).map(Float.init)
        var panels = weights
        Winograd.reorderPanels(&panels, filters: filters, channels: channels)
        for f in 0..<filters {
            for c in 0..<channels {
                for t in 0..<9 { XCTAssertEqual(panels[((f / 4 * 9 + t) * channels + c) * 4 + f % 4], weights[(f * channels + c) * 9 + t]) }
            }
        }
        let kernel = try XCTUnwrap(PackedGEMM.kernel, "OpenBLAS's \(GEMM.coreName) kernel is not available here")
        for (rows, k) in [(8, 3), (12, 515), (16, 1030)] {
            let plain = (0..<(rows * k)).map(Float.init)
            var packed = [Float](repeating: .nan, count: rows * k)
            PackedGEMM.packWeights(kernel, plain, rows: rows, k: k, ldw: k, into: &packed)
            for r in 0..<rows {
                for c in 0..<k {
                    let at = Winograd.panelOffset(row: r / 4 * 4, channel: c, rows: rows, channels: k) + r % 4
                    XCTAssertEqual(packed[at], plain[r * k + c], "\(rows)×\(k) row \(r) channel \(c)")
                }
            }
        }
    }

    private func run(_ c: Case, variant: Winograd.Variant, streamed: Bool = false,
                     orientation: Winograd.Orientation = .filterMajor, batch: Int, input: [Float], inputStride: Int,
                     outputStride: Int, weights: [Float], biases: [Float], activation: Activation = .linear,
                     residual: [Float]? = nil) -> [Float] {
        let outHeight = c.height + 2 * c.pad - 2, outWidth = c.width + 2 * c.pad - 2
        var transformed = weights
        if streamed && variant == .f4 {
            Winograd.reorderPanels(&transformed, filters: c.filters, channels: c.channels)
        } else if streamed {
            Winograd.reorderTapMajor(&transformed, filters: c.filters, channels: c.channels)
        } else {
            transformed = weights.withUnsafeBufferPointer {
                Winograd.transformWeights(variant, $0, filters: c.filters, channels: c.channels, orientation: orientation)
            }
        }
        var output = [Float](repeating: .nan, count: batch * max(outputStride, c.filters * outHeight * outWidth))
        var workspace = [Float](repeating: .nan, count: Winograd.workspaceCount(
            variant, channels: c.channels, filters: c.filters, outHeight: outHeight, outWidth: outWidth, batch: batch,
            streamed: streamed))
        var timer: PhaseTimer? = nil
        output.withUnsafeMutableBufferPointer { o in
            workspace.withUnsafeMutableBufferPointer { w in
                Winograd.forward(variant, input: input, channels: c.channels, height: c.height, width: c.width, pad: c.pad,
                                 output: o.baseAddress!, filters: c.filters, outHeight: outHeight, outWidth: outWidth,
                                 transformed: transformed, biases: biases, activation: activation,
                                 workspace: w.baseAddress!, batch: batch, inputStride: inputStride,
                                 outputStride: outputStride, streamed: streamed, orientation: orientation,
                                 residual: residual, timer: &timer)
            }
        }
        return output
    }
}
