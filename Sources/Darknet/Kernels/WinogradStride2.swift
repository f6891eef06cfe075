/// Winograd for 3×3 **stride-2** convolutions (groups 1, any padding): input `C×H×W` →
/// `filters × outH × outW`, in one of two variants:
///
/// - `.f4`: each 4×4 output tile from a 9×9 input window (windows 8 pixels apart), with 81
///   multiplications per (filter, channel) instead of 144: 5.06 per output instead of darknet's 9.
/// - `.f2`: each 2×2 output tile from a 5×5 window (4 apart), 25 multiplications instead of 36:
///   6.25 per output, but only 25/9 of darknet's weights where `.f4` holds 9×, and transforms with
///   integer coefficients (additions only, no rounding beyond the sums).
///
/// In one dimension, output `y[k] = g0·x[2k−p] + g1·x[2k+1−p] + g2·x[2k+2−p]` splits by the
/// parity of the input: the middle tap reads the window's odd places (one product each), the
/// outer taps are a 2-tap correlation `(g0, g2)` over the even places. `.f4` computes that
/// correlation with Winograd F(4, 2) in 5 products (points 0, 1, −1, 2, ∞; derived with
/// Toom-Cook and checked against the direct sum), `.f2` with F(2, 2) in 3. The one-dimensional
/// positions are, for `.f4` (9 of them):
///
/// - input `Bᵀ d`: `d1, d3, d5, d7`, then over `s = (d0, d2, d4, d6, d8)`:
///   `2s0 − s1 − 2s2 + s3`, `2s1 + s2 − s3`, `−2s1 + 3s2 − s3`, `s3 − s1`, `2s1 − s2 − 2s3 + s4`;
/// - weights `G g`: `g1` four times, then `g0/2`, `(g0 + g2)/2`, `(g0 − g2)/6`, `(g0 + 2g2)/6`, `g2`;
/// - output `Aᵀ m`: `y0 = m0 + m4 + m5 + m6 + m7`, `y1 = m1 + m5 − m6 + 2m7`,
///   `y2 = m2 + m5 + m6 + 4m7`, `y3 = m3 + m5 − m6 + 8m7 + m8`;
///
/// and for `.f2` (5 of them, `WinogradStride2F2.swift`):
///
/// - input: `d1, d3, d0 − d2, d2, d4 − d2`;
/// - weights: `g1, g1, g0, g0 + g2, g2`;
/// - output: `y0 = m0 + m2 + m3`, `y1 = m1 + m3 + m4`.
///
/// The 2-D transforms are these applied to rows then columns (81 or 25 positions), and the products
/// `M[ξ] (filters × tiles) = U[ξ] (filters × C) · V[ξ] (C × tiles)` are GEMMs as in `Winograd`:
/// through OpenBLAS's kernel on weights packed at load when `PackedGEMM` has one (`.packed`),
/// else `GEMM.serial` (`.filterMajor`). `.f4`'s weights hold 81/9 = 9× darknet's floats, so `auto`
/// gives it only the stride-2 layers of large outputs, whose weights are small (yolov3 at 416:
/// 0.7, 2.7 and 10.6 MB for its 208×208, 104×104 and 52×52 outputs), and `.f2` the next ones.
///
/// darknet sums the same products in another order (im2col + GEMM): the outputs differ by float
/// rounding only (`WinogradStride2Tests` bounds it against the naive convolution).
enum WinogradStride2 {
    /// The output tile: 4×4 from 9×9 windows, or 2×2 from 5×5 windows.
    enum Variant: Sendable, Hashable {
        case f4, f2

        /// Output tile side.
        var tile: Int { self == .f4 ? 4 : 2 }
        /// Input window side (2·tile + 1); windows start 2·tile input pixels apart.
        var window: Int { 2 * tile + 1 }
        /// Transform positions, window × window: 81 or 25.
        var positions: Int { window * window }
    }

    /// Tiles covering an `outHeight × outWidth` output.
    static func tiles(_ variant: Variant, outHeight: Int, outWidth: Int) -> (rows: Int, columns: Int) {
        let tile = variant.tile
        return ((outHeight + tile - 1) / tile, (outWidth + tile - 1) / tile)
    }

    /// Floats of `V` and `M` processed at a time (10 MB, as `Winograd.blockFloats`): the output is
    /// transformed and multiplied in blocks of tile rows. A var so tests can force small blocks.
    nonisolated(unsafe) static var blockFloats = 5 << 19

    /// Tile rows per pass: as many as fit `blockFloats`, in passes of equal size.
    static func blockRows(_ variant: Variant, channels: Int, filters: Int, tileRows: Int, tileColumns: Int) -> Int {
        let perTileRow = variant.positions * (channels + filters) * tileColumns
        let most = max(1, min(tileRows, blockFloats / perTileRow))
        let passes = (tileRows + most - 1) / most
        return (tileRows + passes - 1) / passes
    }

    /// Floats of one worker's scratch: the input transform's window × window rows of
    /// half-transformed windows, the output transform's tile × window rows, or the packed tiles of
    /// one pass (`channels ×` the pass's tiles, `PackedGEMM.packColumns`).
    static func scratchCount(_ variant: Variant, channels: Int, tileColumns: Int, blockTiles: Int) -> Int {
        max(variant.positions * tileColumns, channels * blockTiles) + 16
    }

    /// Workers that get their own scratch.
    static let maximumWorkers = 8

    /// Workspace floats `forward` needs: `V` (positions × C × a pass's tiles), `M` (positions ×
    /// filters × a pass's tiles) and each worker's scratch.
    static func workspaceCount(_ variant: Variant, channels: Int, filters: Int, outHeight: Int, outWidth: Int) -> Int {
        let t = tiles(variant, outHeight: outHeight, outWidth: outWidth)
        let rows = blockRows(variant, channels: channels, filters: filters, tileRows: t.rows, tileColumns: t.columns)
        let blockTiles = rows * t.columns
        return variant.positions * (channels + filters) * blockTiles
            + maximumWorkers * scratchCount(variant, channels: channels, tileColumns: t.columns, blockTiles: blockTiles)
    }

    // MARK: Weights

    /// `U = G g Gᵀ` for every filter and channel, `positions × filters × channels` (position
    /// major), each position's plane packed for OpenBLAS's kernel when `orientation` is `.packed`
    /// (`Winograd.packPositions`). Computed in Double, in blocks of 256 kernels per worker written
    /// as one run per position (as `Winograd.transformWeights`). `weights` is darknet's
    /// `filters × channels × 3 × 3`.
    static func transformWeights(_ variant: Variant, _ weights: UnsafeBufferPointer<Float>, filters: Int, channels: Int,
                                 orientation: Winograd.Orientation) -> [Float] {
        precondition(orientation != .tileMajor, "WinogradStride2: filter-major or packed weights only")
        let plane = filters * channels, positions = variant.positions
        let blockSize = 256
        return [Float](unsafeUninitializedCapacity: positions * plane) { u, initialized in
            nonisolated(unsafe) let u = u
            Parallel.forChunks(of: (plane + blockSize - 1) / blockSize, work: plane * positions * 8) { range in
                withUnsafeTemporaryAllocation(of: Float.self, capacity: positions * blockSize) { local in
                    for block in range {
                        let first = block * blockSize, n = min(blockSize, plane - first)
                        for j in 0..<n {
                            let g = weights.baseAddress! + (first + j) * 9, out = local.baseAddress! + j
                            switch variant {
                            case .f4: transformKernel(g, into: out, stride: blockSize)
                            case .f2: transformKernelF2(g, into: out, stride: blockSize)
                            }
                        }
                        for position in 0..<positions {
                            (u.baseAddress! + position * plane + first)
                                .initialize(from: local.baseAddress! + position * blockSize, count: n)
                        }
                    }
                }
            }
            if orientation == .packed { Winograd.packPositions(u.baseAddress!, positions: positions, filters: filters, channels: channels) }
            initialized = positions * plane
        }
    }

    /// The 1-D weight transform of taps `(g0, g1, g2)` for `.f4`: the nine values `G g`.
    @inline(__always)
    static func weightRow(_ g0: Double, _ g1: Double, _ g2: Double)
        -> (Double, Double, Double, Double, Double, Double, Double, Double, Double) {
        (g1, g1, g1, g1, g0 / 2, (g0 + g2) / 2, (g0 - g2) / 6, (g0 + 2 * g2) / 6, g2)
    }

    /// One 3×3 kernel's 81 `.f4` values, position ξ at `out[ξ·stride]`: `G` down each column of taps,
    /// then along each row of the result.
    @inline(__always)
    static func transformKernel(_ g: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>, stride: Int) {
        let c0 = weightRow(Double(g[0]), Double(g[3]), Double(g[6]))
        let c1 = weightRow(Double(g[1]), Double(g[4]), Double(g[7]))
        let c2 = weightRow(Double(g[2]), Double(g[5]), Double(g[8]))
        @inline(__always) func row(_ p: Int, _ a: Double, _ b: Double, _ c: Double) {
            let r = weightRow(a, b, c)
            let base = out + p * 9 * stride
            base[0] = Float(r.0)
            base[stride] = Float(r.1)
            base[2 * stride] = Float(r.2)
            base[3 * stride] = Float(r.3)
            base[4 * stride] = Float(r.4)
            base[5 * stride] = Float(r.5)
            base[6 * stride] = Float(r.6)
            base[7 * stride] = Float(r.7)
            base[8 * stride] = Float(r.8)
        }
        row(0, c0.0, c1.0, c2.0)
        row(1, c0.1, c1.1, c2.1)
        row(2, c0.2, c1.2, c2.2)
        row(3, c0.3, c1.3, c2.3)
        row(4, c0.4, c1.4, c2.4)
        row(5, c0.5, c1.5, c2.5)
        row(6, c0.6, c1.6, c2.6)
        row(7, c0.7, c1.7, c2.7)
        row(8, c0.8, c1.8, c2.8)
    }

    // MARK: Forward

    /// One 3×3 stride-2 convolution of `batch` images (the layout of `Winograd.forward`: image `b`
    /// at `input + b·inputStride`, channel planes `inputChannelStride` apart; output likewise),
    /// `outHeight = (height + 2·pad − 3)/2 + 1`. `transformed` is `transformWeights`' layout for
    /// `orientation`; `workspace` holds `workspaceCount(…)` floats. Bias and activation are added
    /// in the output transform, then `residual` (laid out as `output`), as
    /// `Convolutional.biasActivation` does. The timer's `im2col` phase gets the input transform,
    /// `gemm` the products, `epilogue` the output transform. Each pass shares every phase out
    /// over the workers (`Pass.run`), or, where the weights are small, runs in row parts that
    /// each worker takes through all three phases (`Winograd.rowParts`, `Pass.runParts`).
    static func forward(_ variant: Variant, input: UnsafePointer<Float>, channels: Int, height: Int, width: Int, pad: Int,
                        output: UnsafeMutablePointer<Float>, filters: Int, outHeight: Int, outWidth: Int,
                        transformed: UnsafePointer<Float>, orientation: Winograd.Orientation,
                        biases: UnsafePointer<Float>, activation: Activation, workspace: UnsafeMutablePointer<Float>,
                        batch: Int = 1, inputStride: Int = 0, outputStride: Int = 0,
                        inputChannelStride: Int? = nil, outputChannelStride: Int? = nil,
                        residual: UnsafePointer<Float>? = nil, timer: inout PhaseTimer?) {
        let grid = tiles(variant, outHeight: outHeight, outWidth: outWidth)
        let rowsPerPass = blockRows(variant, channels: channels, filters: filters, tileRows: grid.rows, tileColumns: grid.columns)
        let scratchSize = scratchCount(variant, channels: channels, tileColumns: grid.columns,
                                       blockTiles: rowsPerPass * grid.columns)
        var pass = Pass(variant: variant, channels: channels, height: height, width: width, pad: pad, filters: filters,
                        outHeight: outHeight, outWidth: outWidth, tileColumns: grid.columns,
                        inputChannelStride: inputChannelStride ?? height * width,
                        outputChannelStride: outputChannelStride ?? outHeight * outWidth,
                        transformed: transformed, orientation: orientation, biases: biases, activation: activation,
                        workspace: workspace, scratchSize: scratchSize, firstTileRow: 0, tileRows: 0)
        for image in 0..<batch {
            for first in Swift.stride(from: 0, to: grid.rows, by: rowsPerPass) {
                pass.firstTileRow = first
                pass.tileRows = min(rowsPerPass, grid.rows - first)
                let parts = rowParts(variant, channels: channels, filters: filters, tileRows: pass.tileRows)
                if parts > 1 {
                    pass.runParts(parts, input: input + image * inputStride, output: output + image * outputStride,
                                  residual: residual.map { $0 + image * outputStride }, timer: &timer)
                } else {
                    pass.run(input: input + image * inputStride, output: output + image * outputStride,
                             residual: residual.map { $0 + image * outputStride }, timer: &timer)
                }
            }
        }
    }

    /// One block of tile rows of one image through the three phases.
    struct Pass {
        var variant: Variant
        var channels, height, width, pad, filters, outHeight, outWidth, tileColumns: Int
        var inputChannelStride, outputChannelStride: Int
        var transformed: UnsafePointer<Float>
        var orientation: Winograd.Orientation
        var biases: UnsafePointer<Float>
        var activation: Activation
        var workspace: UnsafeMutablePointer<Float>
        var scratchSize: Int
        var firstTileRow, tileRows: Int

        func run(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, residual: UnsafePointer<Float>?,
                 timer: inout PhaseTimer?) {
            let tileCount = tileRows * tileColumns, positions = variant.positions
            let v = workspace
            let m = v + positions * channels * tileCount
            let scratch = m + positions * filters * tileCount
            let (channels, filters, scratchSize) = (self.channels, self.filters, self.scratchSize)

            Parallel.forWorkers(of: channels, work: channels * tileCount * positions * 4, maximumWorkers: maximumWorkers) { worker, range in
                for c in range {
                    transformChannel(c, input: input, v: v, tileCount: tileCount, rows: scratch + worker * scratchSize)
                }
            }
            timer?.lap(\.im2col)

            if orientation == .packed {
                Winograd.packedProducts(positions: positions, channels: channels, filters: filters, transformed: transformed,
                                        v: v, m: m, tileCount: tileCount, perImage: tileCount, images: 1,
                                        scratch: scratch, scratchSize: scratchSize)
            } else {
                let transformed = self.transformed
                Parallel.forChunks(of: positions, work: filters * channels * tileCount) { range in
                    for position in range {
                        GEMM.serial(m: filters, n: tileCount, k: channels, a: transformed + position * filters * channels,
                                    lda: channels, b: v + position * channels * tileCount, ldb: tileCount,
                                    c: m + position * filters * tileCount, ldc: tileCount)
                    }
                }
            }
            timer?.lap(\.gemm)

            Parallel.forWorkers(of: filters, work: filters * tileCount * positions * 4, maximumWorkers: maximumWorkers) { worker, range in
                for f in range {
                    transformFilter(f, m: m, tileCount: tileCount, output: output, residual: residual,
                                    rows: scratch + worker * scratchSize)
                }
            }
            timer?.lap(\.epilogue)
        }
    }
}

extension WinogradStride2.Pass {
    /// Channel `c`'s input transform (`transformInput` or `transformInputF2`) into V at `v`,
    /// laid out for this pass's `tileCount` tiles.
    @inline(__always)
    func transformChannel(_ c: Int, input: UnsafePointer<Float>, v: UnsafeMutablePointer<Float>, tileCount: Int,
                          rows: UnsafeMutablePointer<Float>) {
        let (plane, target) = (input + c * inputChannelStride, v + c * tileCount)
        switch variant {
        case .f4: transformInput(plane, into: target, positionStride: channels * tileCount, rows: rows)
        case .f2: transformInputF2(plane, into: target, positionStride: channels * tileCount, rows: rows)
        }
    }

    /// Filter `f`'s output transform (`transformOutput` or `transformOutputF2`) from M at `m`
    /// (this pass's `tileCount` tiles) into its output plane, with its bias and `residual`.
    @inline(__always)
    func transformFilter(_ f: Int, m: UnsafePointer<Float>, tileCount: Int, output: UnsafeMutablePointer<Float>,
                         residual: UnsafePointer<Float>?, rows: UnsafeMutablePointer<Float>) {
        let (source, plane) = (m + f * tileCount, output + f * outputChannelStride)
        let added = residual.map { $0 + f * outputChannelStride }
        switch variant {
        case .f4: transformOutput(source, positionStride: filters * tileCount, into: plane, bias: biases[f],
                                  residual: added, rows: rows)
        case .f2: transformOutputF2(source, positionStride: filters * tileCount, into: plane, bias: biases[f],
                                    residual: added, rows: rows)
        }
    }

    /// The input rows of tile row `tileRow` of this pass (the variant's window: 9 or 5 rows from
    /// `2·tile·(firstTileRow + tileRow) − pad`), each through `transformRow(row, target)` along x
    /// into `rows` (row r's at `rows + r·window·tileColumns`); rows outside the image are zeros.
    @inline(__always)
    func transformWindowRows(_ plane: UnsafePointer<Float>, tileRow: Int, into rows: UnsafeMutablePointer<Float>,
                             _ transformRow: (UnsafePointer<Float>, UnsafeMutablePointer<Float>) -> Void) {
        let window = variant.window, count = variant.window * tileColumns
        let top = 2 * variant.tile * (firstTileRow + tileRow) - pad
        for r in 0..<window {
            let y = top + r
            let target = rows + r * count
            guard y >= 0, y < height else {
                target.update(repeating: 0, count: count)
                continue
            }
            transformRow(plane + y * width, target)
        }
    }
}
