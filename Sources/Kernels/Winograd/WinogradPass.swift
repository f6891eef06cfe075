extension Winograd {
    /// The weights a Winograd layer multiplies with.
    package enum Weights {
        /// `U` transformed at load (`transformWeights`), each position packed for `kernel`, or
        /// plain filter-major for `cblas_sgemm` when it is nil.
        case transformed(UnsafePointer<Float>, kernel: PackedGEMM.Kernel?)
        /// The plain weights in `reorderPanels` order, transformed during each pass into
        /// `kernel`'s layout (`WinogradStreamed.swift`).
        case streamed(UnsafePointer<Float>, kernel: PackedGEMM.Kernel)

        var isStreamed: Bool {
            if case .streamed = self { return true }
            return false
        }
    }

    /// Workers that get their own scratch (more threads share the work among this many).
    static let maximumWorkers = 8

    /// One 3×3 stride-1 convolution of `images` images (`g.outHeight = g.height + 2·g.pad − 2`).
    ///
    /// The images' tiles are transformed together when the whole batch fits a pass
    /// (`Blocking.winogradFloats`), else one image at a time in passes of tile rows; the
    /// products run image by image either way, so an image gets the calls it gets alone and
    /// the same bits. Each pass runs three phases, each shared out over the workers: the input
    /// transform (the timer's `im2col` phase), the products (`gemm`), the output transform with
    /// the epilogue (`epilogue`; streamed, it runs inside the products' blocks and is timed with them).
    /// Grids of many tile rows (`bandCount`) run in bands instead, each band's three phases on
    /// one worker (`runBands`); the timer gets the workers' mean time in each phase. `drive` runs
    /// the passes or the bands of `Pass`.
    ///
    /// `pooled` (even output sizes, not streamed): a 2×2 stride-2 `[maxpool]` follows and the
    /// output transform pools each pair of output rows straight into it; `output` is then not
    /// written. `workspace` holds `workspaceCount(…)` floats.
    package static func forward(_ g: ConvolutionGeometry, input: TensorView, images: Int, weights: Weights,
                                output: MutableTensorView, epilogue: Epilogue, pooled: MutableTensorView?,
                                workspace: UnsafeMutablePointer<Float>, context: KernelContext, timer: inout PhaseTimer?) {
        precondition(runs(g), "Winograd.forward: \(g.size)×\(g.size) stride \(g.strideX)×\(g.strideY) dilation \(g.dilation)")
        precondition(pooled == nil || (!weights.isStreamed && g.outHeight % 2 == 0 && g.outWidth % 2 == 0),
                     "Winograd.forward: only pre-transformed products of even outputs are pooled")
        let grid = tiles(outHeight: g.outHeight, outWidth: g.outWidth)
        drive(Pass(layer: g, tileColumns: grid.columns, weights: weights),
              WinogradOperands(input: input, output: output, epilogue: epilogue, pooled: pooled), g, grid: grid,
              images: images, schedule: schedule(g, images: images, streamed: weights.isStreamed, context.blocking),
              workspace: workspace, threads: context.threads, timer: &timer)
    }

    /// How `drive` cuts a layer of this shape: in bands (`bandCount`) or in passes (`blocking`).
    static func schedule(_ g: ConvolutionGeometry, images: Int, streamed: Bool, _ blocking: Blocking) -> Schedule {
        if let bands = bandCount(g, streamed: streamed, blocking) {
            return .bands(count: bands, perWorker: bandWorkspaceCount(g, bands: bands, streamed: streamed))
        }
        let pass = self.blocking(g, images: images, streamed: streamed, blocking)
        return .passes(images: pass.images, tileRows: pass.tileRows)
    }

    /// Bands an image's tile rows are cut into (`Schedule.bands`) for a layer of this shape, or
    /// nil to run it in passes (`bandCount(tileRows:floatsPerTileRow:_:)`'s rule): a tile row
    /// takes V and M, or, streamed, V, its packed copy and one block of M.
    static func bandCount(_ g: ConvolutionGeometry, streamed: Bool, _ blocking: Blocking) -> Int? {
        let grid = tiles(outHeight: g.outHeight, outWidth: g.outWidth)
        let perTile = streamed ? 2 * g.channels + streamedPackedBlockFilters : g.channels + g.filters
        return bandCount(tileRows: grid.rows, floatsPerTileRow: positions * perTile * grid.columns, blocking)
    }

    /// Workspace floats of one worker's band, the largest of `bands`: a one-image pass with one
    /// scratch slot (`passWorkspaceCount`).
    static func bandWorkspaceCount(_ g: ConvolutionGeometry, bands: Int, streamed: Bool) -> Int {
        let rows = (tiles(outHeight: g.outHeight, outWidth: g.outWidth).rows + bands - 1) / bands
        return passWorkspaceCount(g, images: 1, tileRows: rows, slots: 1, streamed: streamed)
    }

    /// Images and tile rows per pass: the whole batch when it fits `blocking.winogradFloats`,
    /// else one image at a time in passes of equal tile rows (the last may have one row
    /// fewer). A tile takes V and M (`channels + filters` floats a position), or, streamed, V,
    /// its packed copy and the streamed workers' blocks of M.
    static func blocking(_ g: ConvolutionGeometry, images: Int, streamed: Bool, _ blocking: Blocking)
        -> (images: Int, tileRows: Int) {
        let grid = tiles(outHeight: g.outHeight, outWidth: g.outWidth)
        let perTile = streamed ? 2 * g.channels + streamedWorkers * streamedPackedBlockFilters : g.channels + g.filters
        let perTileRow = positions * perTile * grid.columns
        if perTileRow * grid.rows * images <= blocking.winogradFloats { return (images, grid.rows) }
        let most = max(1, min(grid.rows, blocking.winogradFloats / perTileRow))
        let passes = (grid.rows + most - 1) / most
        return (1, (grid.rows + passes - 1) / passes)
    }

    /// Workspace floats `forward` needs: a pass's (`passWorkspaceCount`, `maximumWorkers`
    /// slots), or banded, `bandedWorkers` band workspaces (`bandWorkspaceCount`).
    package static func workspaceCount(_ g: ConvolutionGeometry, images: Int, streamed: Bool, blocking: Blocking) -> Int {
        switch schedule(g, images: images, streamed: streamed, blocking) {
        case .bands(_, let perWorker): bandedWorkers * perWorker
        case .passes(let images, let tileRows):
            passWorkspaceCount(g, images: images, tileRows: tileRows, slots: maximumWorkers, streamed: streamed)
        }
    }

    /// Workspace floats of a pass of `images` images × `tileRows` tile rows with `slots` workers'
    /// scratch (`Pass.run`'s layout): `V` (positions × C × the pass's tiles), then `M` (positions ×
    /// filters × those tiles) or, streamed, the tiles packed for the kernel; then each slot's
    /// scratch (`scratchCount`) and, streamed, the blocks of each streamed worker (at most
    /// `streamedWorkers`, and no more than the slots).
    static func passWorkspaceCount(_ g: ConvolutionGeometry, images: Int, tileRows: Int, slots: Int, streamed: Bool) -> Int {
        let columns = tiles(outHeight: g.outHeight, outWidth: g.outWidth).columns
        let tileCount = columns * tileRows * images
        let scratch = slots * scratchCount(tileRows: tileRows, tileColumns: columns, images: images, outWidth: g.outWidth,
                                           packedChannels: g.channels)
        if streamed {
            return 2 * positions * g.channels * tileCount + scratch
                + min(slots, streamedWorkers) * streamedPackedScratchCount(channels: g.channels, tileCount: tileCount)
        }
        return positions * (g.channels + g.filters) * tileCount + scratch
    }

    /// Scratch of one worker: the input transform's row-phase buffers (6·4·(rows + 1) ×
    /// columns, plus 4 phase rows), the output transform's 4·6 + 16 planes of tiles and the pair
    /// of rows a pool finishes at a time, or one image's tiles of `packedChannels` channels
    /// packed for the kernel (`PackedGEMM.packColumns`).
    static func scratchCount(tileRows: Int, tileColumns: Int, images: Int, outWidth: Int, packedChannels: Int) -> Int {
        let input = window * tile * (tileRows + 1) * tileColumns + tile * (tileColumns + 1)
        let output = (tile * window + tile * tile) * images * tileRows * tileColumns + 2 * outWidth
        let packedTiles = packedChannels * tileRows * tileColumns
        return max(input, output, packedTiles) + 16
    }

    /// F(4×4)'s pass (`WinogradPass`): `images` images × a block of tile rows of `layer`,
    /// through the three phases.
    struct Pass: WinogradPass {
        var layer: ConvolutionGeometry
        var tileColumns: Int
        var weights: Weights

        func run(_ operands: WinogradOperands, images: Int, tileRows: Range<Int>, workspace: UnsafeMutablePointer<Float>,
                 threads: Int, slots: Int, timer: inout PhaseTimer?) {
            let g = PassGeometry(height: layer.height, width: layer.width, pad: layer.pad, outHeight: layer.outHeight,
                                 outWidth: layer.outWidth, firstTileRow: tileRows.lowerBound, tileRows: tileRows.count,
                                 tileColumns: tileColumns)
            let perImage = g.tileCount, tileCount = images * perImage
            let (channels, filters, weights) = (layer.channels, layer.filters, self.weights)
            let v = workspace
            // M, or streamed the packed tiles, follows V; the workers' scratch follows that.
            let m = v + positions * channels * tileCount
            let scratch = m + positions * (weights.isStreamed ? channels : filters) * tileCount
            let scratchSize = Winograd.scratchCount(tileRows: g.tileRows, tileColumns: g.tileColumns, images: images,
                                                    outWidth: g.outWidth, packedChannels: channels)
            let input = operands.input
            Parallel.forWorkers(of: images * channels, work: images * channels * perImage * 64, threads: threads,
                                maximumWorkers: slots) { worker, range in
                let rows = scratch + worker * scratchSize
                for item in range {
                    let (b, c) = item.quotientAndRemainder(dividingBy: channels)
                    transformInput(input.plane(image: b, channel: c), g, into: v + c * tileCount + b * perImage,
                                   positionStride: channels * tileCount, rows: rows)
                }
            }
            timer?.lap(\.im2col)

            let (output, epilogue, pooled) = (operands.output, operands.epilogue, operands.pooled)
            switch weights {
            case .streamed(let panels, let kernel):
                // Each image's tiles of every position packed once, then each worker's blocks of
                // filters through weight transform, products and output transform in one go,
                // while its block of M is still in its caches.
                let packedTiles = m
                Parallel.forChunks(of: positions * images, work: positions * channels * tileCount, threads: threads) { range in
                    for item in range {
                        let (position, b) = item.quotientAndRemainder(dividingBy: images)
                        PackedGEMM.packColumns(kernel, v + position * channels * tileCount + b * perImage, columns: perImage,
                                               k: channels, ldx: tileCount, into: packedTiles + item * channels * perImage)
                    }
                }
                streamedPackedProducts(panels: panels, channels: channels, filters: filters, packedTiles: packedTiles,
                                       tileCount: tileCount, perImage: perImage, images: images,
                                       scratch: scratch + slots * scratchSize, kernel: kernel, threads: threads) {
                    worker, f, mRow, positionStride in
                    transformOutput(mRow, g, positionStride: positionStride, images: images, filter: f, output: output,
                                    epilogue: epilogue, pooled: nil, rows: scratch + worker * scratchSize)
                }
                timer?.lap(\.gemm)
            case .transformed(let u, let kernel):
                WinogradProducts.run(positions: positions, u: u, kernel: kernel, v: v, m: m, filters: filters,
                                     channels: channels, tileCount: tileCount, perImage: perImage, images: images,
                                     scratch: scratch, scratchSize: scratchSize, threads: threads)
                timer?.lap(\.gemm)
                Parallel.forWorkers(of: filters, work: images * filters * perImage * 64, threads: threads,
                                    maximumWorkers: slots) { worker, range in
                    for f in range {
                        transformOutput(m + f * tileCount, g, positionStride: filters * tileCount, images: images, filter: f,
                                        output: output, epilogue: epilogue, pooled: pooled, rows: scratch + worker * scratchSize)
                    }
                }
                timer?.lap(\.epilogue)
            }
        }
    }
}
