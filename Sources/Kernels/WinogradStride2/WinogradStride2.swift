/// Winograd for 3×3 **stride-2** convolutions (groups 1, any padding): input `C×H×W` →
/// `filters × outH × outW`, each 2×2 output tile from a 5×5 input window (windows 4 pixels
/// apart), with 25 multiplications per (filter, channel) instead of 36, weights 25/9 of
/// darknet's, and transforms of additions only.
///
/// Along one axis, outputs `y0 = g0·d0 + g1·d1 + g2·d2` and `y1 = g0·d2 + g1·d3 + g2·d4`: the
/// middle tap reads the odd places d1 and d3 (2 products), the outer taps are Winograd F(2, 2)
/// over the even places `s = (d0, d2, d4)` (3 products):
///
///     g0·s0 + g2·s1 = (s0 − s1)·g0 + s1·(g0 + g2)
///     g0·s1 + g2·s2 = s1·(g0 + g2) + (s2 − s1)·g2
///
/// so the five positions are `d1, d3, d0 − d2, d2, d4 − d2` (weights `g1, g1, g0, g0 + g2,
/// g2`) and `y0 = m0 + m2 + m3`, `y1 = m1 + m3 + m4`. The 2-D transforms are these applied to
/// rows then columns (25 positions), and the products are `WinogradProducts`' GEMMs, as in
/// `Winograd`. darknet sums the same products in another order (im2col + GEMM): the outputs
/// differ by float rounding only (`WinogradStride2Tests` bounds it against the naive
/// convolution; `WinogradStride2Reference` has the matrices).
package enum WinogradStride2 {
    /// Output tile side.
    static let tile = 2
    /// Input window side: 2·tile + 1.
    static let window = 5
    /// Transform positions: window².
    package static let positions = 25

    /// True when this computes a convolution of this shape: 3×3, stride 2, no dilation (groups
    /// are the caller's to exclude).
    package static func runs(_ g: ConvolutionGeometry) -> Bool {
        g.size == 3 && g.strideX == 2 && g.strideY == 2 && g.dilation == 1
    }

    /// Tiles covering an `outHeight × outWidth` output.
    package static func tiles(outHeight: Int, outWidth: Int) -> (rows: Int, columns: Int) {
        ((outHeight + 1) / 2, (outWidth + 1) / 2)
    }

    /// `U = G g Gᵀ` for every filter and channel, `positions × filters × channels` (position
    /// major), each position's plane packed for `packed` when given. Computed in Double and
    /// rounded once. `weights` is darknet's `filters × channels × 3 × 3`.
    package static func transformWeights(_ weights: UnsafeBufferPointer<Float>, filters: Int, channels: Int,
                                         packed: PackedGEMM.Kernel?, threads: Int) -> [Float] {
        let plane = filters * channels, blockSize = 256
        return [Float](unsafeUninitializedCapacity: positions * plane) { u, initialized in
            nonisolated(unsafe) let u = u
            // Blocks of kernels transformed into a local buffer, then written as one run per
            // position (kernel by kernel, the 25 writes `plane` floats apart share a cache set).
            Parallel.forChunks(of: (plane + blockSize - 1) / blockSize, work: plane * positions * 8, threads: threads) { range in
                withUnsafeTemporaryAllocation(of: Float.self, capacity: positions * blockSize) { local in
                    for block in range {
                        let first = block * blockSize, n = min(blockSize, plane - first)
                        for j in 0..<n {
                            transformKernel(weights.baseAddress! + (first + j) * 9, into: local.baseAddress! + j, stride: blockSize)
                        }
                        for position in 0..<positions {
                            (u.baseAddress! + position * plane + first).initialize(from: local.baseAddress! + position * blockSize, count: n)
                        }
                    }
                }
            }
            if let packed {
                WinogradProducts.packPositions(u.baseAddress!, positions: positions, filters: filters, channels: channels,
                                               kernel: packed, threads: threads)
            }
            initialized = positions * plane
        }
    }

    /// One 3×3 kernel's 25 values, position ξ at `out[ξ·stride]`: `G` down each column of taps,
    /// then along each row of the result (in Double, rounded once to Float).
    @inline(__always)
    static func transformKernel(_ g: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>, stride: Int) {
        @inline(__always) func G(_ g0: Double, _ g1: Double, _ g2: Double) -> (Double, Double, Double, Double, Double) {
            (g1, g1, g0, g0 + g2, g2)
        }
        let c0 = G(Double(g[0]), Double(g[3]), Double(g[6]))
        let c1 = G(Double(g[1]), Double(g[4]), Double(g[7]))
        let c2 = G(Double(g[2]), Double(g[5]), Double(g[8]))
        @inline(__always) func row(_ p: Int, _ a: Double, _ b: Double, _ c: Double) {
            let r = G(a, b, c)
            let base = out + p * 5 * stride
            base[0] = Float(r.0)
            base[stride] = Float(r.1)
            base[2 * stride] = Float(r.2)
            base[3 * stride] = Float(r.3)
            base[4 * stride] = Float(r.4)
        }
        row(0, c0.0, c1.0, c2.0)
        row(1, c0.1, c1.1, c2.1)
        row(2, c0.2, c1.2, c2.2)
        row(3, c0.3, c1.3, c2.3)
        row(4, c0.4, c1.4, c2.4)
    }

    /// Tile rows a pass takes: as many as fit `blocking.winogradFloats` of V and M, in passes
    /// of equal size.
    static func passRows(_ g: ConvolutionGeometry, _ blocking: Blocking) -> Int {
        let grid = tiles(outHeight: g.outHeight, outWidth: g.outWidth)
        let perTileRow = positions * (g.channels + g.filters) * grid.columns
        let most = max(1, min(grid.rows, blocking.winogradFloats / perTileRow))
        let passes = (grid.rows + most - 1) / most
        return (grid.rows + passes - 1) / passes
    }

    /// Scratch floats of one worker: the input transform's 5 rows of half-transformed windows,
    /// the output transform's rows, or one pass's tiles packed for the kernel.
    static func scratchCount(channels: Int, tileColumns: Int, passTiles: Int) -> Int {
        max(positions * tileColumns, channels * passTiles) + 16
    }

    /// Bands an image's tile rows are cut into (`Winograd.Schedule.bands`), or nil for passes
    /// whose phases are each shared out (`Winograd.bandCount(tileRows:floatsPerTileRow:_:)`'s
    /// rule; a tile row takes V and M).
    static func bandCount(_ g: ConvolutionGeometry, _ blocking: Blocking) -> Int? {
        let grid = tiles(outHeight: g.outHeight, outWidth: g.outWidth)
        return Winograd.bandCount(tileRows: grid.rows, floatsPerTileRow: positions * (g.channels + g.filters) * grid.columns,
                                  blocking)
    }

    /// How `Winograd.drive` cuts a layer of this shape: in bands (`bandCount`), each a pass of
    /// the largest band's tile rows with one scratch slot, or in one-image passes of `passRows`.
    static func schedule(_ g: ConvolutionGeometry, _ blocking: Blocking) -> Winograd.Schedule {
        guard let bands = bandCount(g, blocking) else { return .passes(images: 1, tileRows: passRows(g, blocking)) }
        let rows = (tiles(outHeight: g.outHeight, outWidth: g.outWidth).rows + bands - 1) / bands
        return .bands(count: bands, perWorker: passWorkspaceCount(g, tileRows: rows, slots: 1))
    }

    /// Workspace floats `forward` needs: a pass's (`maximumWorkers` slots), or banded,
    /// `Winograd.bandedWorkers` band workspaces.
    package static func workspaceCount(_ g: ConvolutionGeometry, blocking: Blocking) -> Int {
        switch schedule(g, blocking) {
        case .bands(_, let perWorker): Winograd.bandedWorkers * perWorker
        case .passes(_, let tileRows): passWorkspaceCount(g, tileRows: tileRows, slots: Winograd.maximumWorkers)
        }
    }

    /// Workspace floats of a one-image pass of `tileRows` tile rows with `slots` workers' scratch
    /// (`Pass.run`'s layout): V and M, then each slot's scratch.
    static func passWorkspaceCount(_ g: ConvolutionGeometry, tileRows: Int, slots: Int) -> Int {
        let columns = tiles(outHeight: g.outHeight, outWidth: g.outWidth).columns
        let tileCount = tileRows * columns
        return positions * (g.channels + g.filters) * tileCount
            + slots * scratchCount(channels: g.channels, tileColumns: columns, passTiles: tileCount)
    }

    /// One 3×3 stride-2 convolution of `images` images (`g.outHeight = (g.height + 2·g.pad − 3)/2 + 1`),
    /// image by image in passes of tile rows, each through three phases shared out over the
    /// workers: the input transform (the timer's `im2col`), the products (`gemm`), the output
    /// transform with the epilogue (`epilogue`). `u` is `transformWeights`' layout for `kernel`.
    /// Grids of many tile rows (`bandCount`) run in bands instead, each band's three phases on
    /// one worker (`Winograd.runBands` says why); the timer gets the workers' mean phases.
    /// `Winograd.drive` runs the passes or the bands of `Pass`.
    package static func forward(_ g: ConvolutionGeometry, input: TensorView, images: Int, u: UnsafePointer<Float>,
                                kernel: PackedGEMM.Kernel?, output: MutableTensorView, epilogue: Epilogue,
                                workspace: UnsafeMutablePointer<Float>, context: KernelContext, timer: inout PhaseTimer?) {
        precondition(runs(g), "WinogradStride2.forward: \(g.size)×\(g.size) stride \(g.strideX)×\(g.strideY)")
        let grid = tiles(outHeight: g.outHeight, outWidth: g.outWidth)
        Winograd.drive(Pass(layer: g, tileColumns: grid.columns, u: u, kernel: kernel),
                       WinogradOperands(input: input, output: output, epilogue: epilogue, pooled: nil), g, grid: grid,
                       images: images, schedule: schedule(g, context.blocking), workspace: workspace,
                       threads: context.threads, timer: &timer)
    }

    /// The stride-2 pass (`WinogradPass`): a block of tile rows of one image of `layer`
    /// through the three phases.
    struct Pass: WinogradPass {
        var layer: ConvolutionGeometry
        var tileColumns: Int
        var u: UnsafePointer<Float>
        var kernel: PackedGEMM.Kernel?

        func run(_ operands: WinogradOperands, images: Int, tileRows: Range<Int>, workspace: UnsafeMutablePointer<Float>,
                 threads: Int, slots: Int, timer: inout PhaseTimer?) {
            precondition(images == 1 && operands.pooled == nil, "WinogradStride2.Pass: one image, no pool")
            let block = Block(geometry: layer, tileColumns: tileColumns, firstTileRow: tileRows.lowerBound,
                              tileRows: tileRows.count, output: operands.output, epilogue: operands.epilogue)
            let tileCount = block.tileRows * tileColumns
            let (channels, filters) = (layer.channels, layer.filters)
            let scratchSize = scratchCount(channels: channels, tileColumns: tileColumns, passTiles: tileCount)
            let input = operands.input
            let v = workspace
            let m = v + positions * channels * tileCount
            let scratch = m + positions * filters * tileCount
            Parallel.forWorkers(of: channels, work: channels * tileCount * positions * 4, threads: threads,
                                maximumWorkers: slots) { worker, range in
                for c in range {
                    block.transformInput(input.plane(channel: c), into: v + c * tileCount, positionStride: channels * tileCount,
                                         rows: scratch + worker * scratchSize)
                }
            }
            timer?.lap(\.im2col)
            WinogradProducts.run(positions: positions, u: u, kernel: kernel, v: v, m: m, filters: filters, channels: channels,
                                 tileCount: tileCount, perImage: tileCount, images: 1, scratch: scratch,
                                 scratchSize: scratchSize, threads: threads)
            timer?.lap(\.gemm)
            Parallel.forWorkers(of: filters, work: filters * tileCount * positions * 4, threads: threads,
                                maximumWorkers: slots) { worker, range in
                for f in range {
                    block.transformOutput(m + f * tileCount, positionStride: filters * tileCount, filter: f,
                                          rows: scratch + worker * scratchSize)
                }
            }
            timer?.lap(\.epilogue)
        }
    }

    /// The tile rows one pass covers, which the transforms (`WinogradStride2Transforms.swift`) read.
    struct Block {
        var geometry: ConvolutionGeometry
        var tileColumns, firstTileRow, tileRows: Int
        var output: MutableTensorView
        var epilogue: Epilogue
    }
}
