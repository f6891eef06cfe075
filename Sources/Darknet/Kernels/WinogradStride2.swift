/// Winograd for 3×3 **stride-2** convolutions (groups 1, any padding): input `C×H×W` →
/// `filters × outH × outW`, each 4×4 output tile from a 9×9 input window (windows 8 pixels
/// apart), with 81 multiplications per (filter, channel) instead of 144: 5.06 per output
/// instead of darknet's 9.
///
/// In one dimension, output `y[k] = g0·x[2k−p] + g1·x[2k+1−p] + g2·x[2k+2−p]` splits by the
/// parity of the input: the middle tap reads the window's odd places 1, 3, 5, 7 (4 products),
/// the outer taps are a 2-tap correlation `(g0, g2)` over the even places 0, 2, 4, 6, 8, which
/// Winograd F(4, 2) computes with 5 products (points 0, 1, −1, 2, ∞; derived with Toom-Cook
/// and checked against the direct sum). The 9 one-dimensional positions are:
///
/// - input `Bᵀ d`: `d1, d3, d5, d7`, then over `s = (d0, d2, d4, d6, d8)`:
///   `2s0 − s1 − 2s2 + s3`, `2s1 + s2 − s3`, `−2s1 + 3s2 − s3`, `s3 − s1`, `2s1 − s2 − 2s3 + s4`;
/// - weights `G g`: `g1` four times, then `g0/2`, `(g0 + g2)/2`, `(g0 − g2)/6`, `(g0 + 2g2)/6`, `g2`;
/// - output `Aᵀ m`: `y0 = m0 + m4 + m5 + m6 + m7`, `y1 = m1 + m5 − m6 + 2m7`,
///   `y2 = m2 + m5 + m6 + 4m7`, `y3 = m3 + m5 − m6 + 8m7 + m8`.
///
/// The 2-D transforms are these applied to rows then columns (81 positions), and the products
/// `M[ξ] (filters × tiles) = U[ξ] (filters × C) · V[ξ] (C × tiles)` are GEMMs as in `Winograd`:
/// through OpenBLAS's kernel on weights packed at load when `PackedGEMM` has one (`.packed`),
/// else `GEMM.serial` (`.filterMajor`). The weights hold 81/9 = 9× darknet's floats, so `auto`
/// gives this method only the stride-2 layers of large outputs, whose weights are small
/// (yolov3 at 416: 0.7, 2.7 and 10.6 MB for its 208×208, 104×104 and 52×52 outputs).
///
/// darknet sums the same products in another order (im2col + GEMM): the outputs differ by float
/// rounding only (`WinogradStride2Tests` bounds it against the naive convolution).
enum WinogradStride2 {
    /// Output tile side.
    static let tile = 4
    /// Input window side (2·4 + 1); windows start 8 input pixels apart.
    static let window = 9
    /// Transform positions, 9 × 9.
    static let positions = 81

    /// Tiles covering an `outHeight × outWidth` output.
    static func tiles(outHeight: Int, outWidth: Int) -> (rows: Int, columns: Int) {
        ((outHeight + tile - 1) / tile, (outWidth + tile - 1) / tile)
    }

    /// Floats of `V` and `M` processed at a time (10 MB, as `Winograd.blockFloats`): the output is
    /// transformed and multiplied in blocks of tile rows. A var so tests can force small blocks.
    nonisolated(unsafe) static var blockFloats = 5 << 19

    /// Tile rows per pass: as many as fit `blockFloats`, in passes of equal size.
    static func blockRows(channels: Int, filters: Int, tileRows: Int, tileColumns: Int) -> Int {
        let perTileRow = positions * (channels + filters) * tileColumns
        let most = max(1, min(tileRows, blockFloats / perTileRow))
        let passes = (tileRows + most - 1) / most
        return (tileRows + passes - 1) / passes
    }

    /// Floats of one worker's scratch: the input transform's 9 × 9 rows of half-transformed
    /// windows, the output transform's 4 × 9 rows, or the packed tiles of one pass (`channels ×`
    /// the pass's tiles, `PackedGEMM.packColumns`).
    static func scratchCount(channels: Int, tileColumns: Int, blockTiles: Int) -> Int {
        max(positions * tileColumns, channels * blockTiles) + 16
    }

    /// Workers that get their own scratch.
    static let maximumWorkers = 8

    /// Workspace floats `forward` needs: `V` (81 × C × a pass's tiles), `M` (81 × filters × a
    /// pass's tiles) and each worker's scratch.
    static func workspaceCount(channels: Int, filters: Int, outHeight: Int, outWidth: Int) -> Int {
        let t = tiles(outHeight: outHeight, outWidth: outWidth)
        let rows = blockRows(channels: channels, filters: filters, tileRows: t.rows, tileColumns: t.columns)
        let blockTiles = rows * t.columns
        return positions * (channels + filters) * blockTiles
            + maximumWorkers * scratchCount(channels: channels, tileColumns: t.columns, blockTiles: blockTiles)
    }

    // MARK: Weights

    /// `U = G g Gᵀ` for every filter and channel, `positions × filters × channels` (position
    /// major), each position's plane packed for OpenBLAS's kernel when `orientation` is `.packed`
    /// (`Winograd.packPositions`). Computed in Double, in blocks of 256 kernels per worker written
    /// as one run per position (as `Winograd.transformWeights`). `weights` is darknet's
    /// `filters × channels × 3 × 3`.
    static func transformWeights(_ weights: UnsafeBufferPointer<Float>, filters: Int, channels: Int,
                                 orientation: Winograd.Orientation) -> [Float] {
        precondition(orientation != .tileMajor, "WinogradStride2: filter-major or packed weights only")
        let plane = filters * channels
        let blockSize = 256
        return [Float](unsafeUninitializedCapacity: positions * plane) { u, initialized in
            nonisolated(unsafe) let u = u
            Parallel.forChunks(of: (plane + blockSize - 1) / blockSize, work: plane * positions * 8) { range in
                withUnsafeTemporaryAllocation(of: Float.self, capacity: positions * blockSize) { local in
                    for block in range {
                        let first = block * blockSize, n = min(blockSize, plane - first)
                        for j in 0..<n {
                            transformKernel(weights.baseAddress! + (first + j) * 9, into: local.baseAddress! + j, stride: blockSize)
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

    /// The 1-D weight transform of taps `(g0, g1, g2)`: the nine values `G g`.
    @inline(__always)
    static func weightRow(_ g0: Double, _ g1: Double, _ g2: Double)
        -> (Double, Double, Double, Double, Double, Double, Double, Double, Double) {
        (g1, g1, g1, g1, g0 / 2, (g0 + g2) / 2, (g0 - g2) / 6, (g0 + 2 * g2) / 6, g2)
    }

    /// One 3×3 kernel's 81 values, position ξ at `out[ξ·stride]`: `G` down each column of taps,
    /// then along each row of the result.
    @inline(__always)
    static func transformKernel(_ g: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>, stride: Int) {
        let c0 = weightRow(Double(g[0]), Double(g[3]), Double(g[6]))
        let c1 = weightRow(Double(g[1]), Double(g[4]), Double(g[7]))
        let c2 = weightRow(Double(g[2]), Double(g[5]), Double(g[8]))
        @inline(__always) func row(_ p: Int, _ a: Double, _ b: Double, _ c: Double) {
            let r = weightRow(a, b, c)
            let base = out + p * window * stride
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
    /// `gemm` the products, `epilogue` the output transform.
    static func forward(input: UnsafePointer<Float>, channels: Int, height: Int, width: Int, pad: Int,
                        output: UnsafeMutablePointer<Float>, filters: Int, outHeight: Int, outWidth: Int,
                        transformed: UnsafePointer<Float>, orientation: Winograd.Orientation,
                        biases: UnsafePointer<Float>, activation: Activation, workspace: UnsafeMutablePointer<Float>,
                        batch: Int = 1, inputStride: Int = 0, outputStride: Int = 0,
                        inputChannelStride: Int? = nil, outputChannelStride: Int? = nil,
                        residual: UnsafePointer<Float>? = nil, timer: inout PhaseTimer?) {
        let grid = tiles(outHeight: outHeight, outWidth: outWidth)
        let rowsPerPass = blockRows(channels: channels, filters: filters, tileRows: grid.rows, tileColumns: grid.columns)
        let scratchSize = scratchCount(channels: channels, tileColumns: grid.columns, blockTiles: rowsPerPass * grid.columns)
        var pass = Pass(channels: channels, height: height, width: width, pad: pad, filters: filters,
                        outHeight: outHeight, outWidth: outWidth, tileColumns: grid.columns,
                        inputChannelStride: inputChannelStride ?? height * width,
                        outputChannelStride: outputChannelStride ?? outHeight * outWidth,
                        transformed: transformed, orientation: orientation, biases: biases, activation: activation,
                        workspace: workspace, scratchSize: scratchSize, firstTileRow: 0, tileRows: 0)
        for image in 0..<batch {
            for first in Swift.stride(from: 0, to: grid.rows, by: rowsPerPass) {
                pass.firstTileRow = first
                pass.tileRows = min(rowsPerPass, grid.rows - first)
                pass.run(input: input + image * inputStride, output: output + image * outputStride,
                         residual: residual.map { $0 + image * outputStride }, timer: &timer)
            }
        }
    }

    /// One block of tile rows of one image through the three phases.
    struct Pass {
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
            let tileCount = tileRows * tileColumns
            let v = workspace
            let m = v + positions * channels * tileCount
            let scratch = m + positions * filters * tileCount
            let (channels, filters, scratchSize) = (self.channels, self.filters, self.scratchSize)

            Parallel.forWorkers(of: channels, work: channels * tileCount * positions * 4, maximumWorkers: maximumWorkers) { worker, range in
                for c in range {
                    transformInput(input + c * inputChannelStride, into: v + c * tileCount,
                                   positionStride: channels * tileCount, rows: scratch + worker * scratchSize)
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
                    transformOutput(m + f * tileCount, positionStride: filters * tileCount,
                                    into: output + f * outputChannelStride, bias: biases[f],
                                    residual: residual.map { $0 + f * outputChannelStride }, rows: scratch + worker * scratchSize)
                }
            }
            timer?.lap(\.epilogue)
        }
    }
}
