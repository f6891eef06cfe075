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
    /// one worker (`forwardInBands`); the timer gets the workers' mean time in each phase.
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
        if let bands = bandCount(g, streamed: weights.isStreamed, context.blocking) {
            let phases = forwardInBands(g, bands: bands, input: input, images: images, weights: weights, output: output,
                                        epilogue: epilogue, pooled: pooled, workspace: workspace, threads: context.threads,
                                        timed: timer != nil)
            timer?.lap(\.gemm, shares: (\.im2col, phases.im2col), (\.epilogue, phases.epilogue))
            return
        }
        let (passImages, passRows) = blocking(g, images: images, streamed: weights.isStreamed, context.blocking)
        var pass = Pass(geometry: PassGeometry(height: g.height, width: g.width, pad: g.pad, outHeight: g.outHeight,
                                               outWidth: g.outWidth, firstTileRow: 0, tileRows: passRows,
                                               tileColumns: grid.columns),
                        channels: g.channels, filters: g.filters, images: passImages, input: input, weights: weights,
                        output: output, epilogue: epilogue, pooled: pooled, workspace: workspace, threads: context.threads,
                        slots: maximumWorkers)
        for image in Swift.stride(from: 0, to: images, by: passImages) {
            pass.input.base = input.plane(image: image, channel: 0)
            pass.output.base = output.plane(image: image, channel: 0)
            pass.epilogue.residual = epilogue.residual.map { $0 + output.base.distance(to: pass.output.base) }
            if let pooled { pass.pooled?.base = pooled.plane(image: image, channel: 0) }
            for first in Swift.stride(from: 0, to: grid.rows, by: passRows) {
                pass.geometry.firstTileRow = first
                pass.geometry.tileRows = min(passRows, grid.rows - first)
                pass.run(timer: &timer)
            }
        }
    }

    /// Bands an image's tile rows are cut into (`forwardInBands`) for a layer of this shape, or
    /// nil to run it in passes (`bandCount(tileRows:floatsPerTileRow:_:)`'s rule): a tile row
    /// takes V and M, or, streamed, V, its packed copy and one block of M.
    static func bandCount(_ g: ConvolutionGeometry, streamed: Bool, _ blocking: Blocking) -> Int? {
        let grid = tiles(outHeight: g.outHeight, outWidth: g.outWidth)
        let perTile = streamed ? 2 * g.channels + streamedPackedBlockFilters : g.channels + g.filters
        return bandCount(tileRows: grid.rows, floatsPerTileRow: positions * perTile * grid.columns, blocking)
    }

    /// Every image's tile rows cut into `bands` bands, each a one-worker pass of all three
    /// phases in that worker's slice of `workspace` (`bandWorkspaceCount` floats each; `runBands`
    /// says why). Returns, when `timed`, the workers' mean seconds in each phase.
    static func forwardInBands(_ g: ConvolutionGeometry, bands: Int, input: TensorView, images: Int, weights: Weights,
                               output: MutableTensorView, epilogue: Epilogue, pooled: MutableTensorView?,
                               workspace: UnsafeMutablePointer<Float>, threads: Int, timed: Bool) -> ConvolutionPhases {
        let grid = tiles(outHeight: g.outHeight, outWidth: g.outWidth)
        let perWorker = bandWorkspaceCount(g, bands: bands, streamed: weights.isStreamed)
        return runBands(images: images, bands: bands, tileRows: grid.rows,
                        work: images * g.filters * g.channels * grid.rows * grid.columns, threads: threads,
                        timed: timed) { worker, image, rows, timer in
            var pass = Pass(geometry: PassGeometry(height: g.height, width: g.width, pad: g.pad, outHeight: g.outHeight,
                                                   outWidth: g.outWidth, firstTileRow: rows.lowerBound,
                                                   tileRows: rows.count, tileColumns: grid.columns),
                            channels: g.channels, filters: g.filters, images: 1, input: input, weights: weights,
                            output: output, epilogue: epilogue, pooled: pooled,
                            workspace: workspace + worker * perWorker, threads: 1, slots: 1)
            pass.input.base = input.plane(image: image, channel: 0)
            pass.output.base = output.plane(image: image, channel: 0)
            pass.epilogue.residual = epilogue.residual.map { $0 + output.base.distance(to: pass.output.base) }
            if let pooled { pass.pooled?.base = pooled.plane(image: image, channel: 0) }
            pass.run(timer: &timer)
        }
    }

    /// Workspace floats of one worker's band, the largest of `bands`: a one-image pass with one
    /// scratch slot (see `workspaceCount`).
    static func bandWorkspaceCount(_ g: ConvolutionGeometry, bands: Int, streamed: Bool) -> Int {
        let grid = tiles(outHeight: g.outHeight, outWidth: g.outWidth)
        let rows = (grid.rows + bands - 1) / bands
        let tileCount = grid.columns * rows
        let scratch = scratchCount(tileRows: rows, tileColumns: grid.columns, images: 1, outWidth: g.outWidth,
                                   packedChannels: g.channels)
        if streamed {
            return 2 * positions * g.channels * tileCount + scratch + streamedPackedScratchCount(channels: g.channels, tileCount: tileCount)
        }
        return positions * (g.channels + g.filters) * tileCount + scratch
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

    /// Workspace floats `forward` needs: `V` (positions × C × a pass's tiles), then `M`
    /// (positions × filters × those tiles) or, streamed, the tiles packed for the kernel and each
    /// streamed worker's blocks; then each worker's scratch (`scratchCount`). A banded layer
    /// needs `bandedWorkers` band workspaces instead (`bandWorkspaceCount`).
    package static func workspaceCount(_ g: ConvolutionGeometry, images: Int, streamed: Bool, blocking: Blocking) -> Int {
        if let bands = bandCount(g, streamed: streamed, blocking) { return bandedWorkers * bandWorkspaceCount(g, bands: bands, streamed: streamed) }
        let grid = tiles(outHeight: g.outHeight, outWidth: g.outWidth)
        let pass = self.blocking(g, images: images, streamed: streamed, blocking)
        let tileCount = grid.columns * pass.tileRows * pass.images
        let scratch = maximumWorkers * scratchCount(tileRows: pass.tileRows, tileColumns: grid.columns, images: pass.images,
                                                    outWidth: g.outWidth, packedChannels: g.channels)
        if streamed {
            return 2 * positions * g.channels * tileCount + scratch
                + streamedWorkers * streamedPackedScratchCount(channels: g.channels, tileCount: tileCount)
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

    /// One pass: `images` images × the geometry's tile rows, through the three phases.
    struct Pass {
        var geometry: PassGeometry
        var channels, filters, images: Int
        var input: TensorView
        var weights: Weights
        var output: MutableTensorView
        var epilogue: Epilogue
        var pooled: MutableTensorView?
        var workspace: UnsafeMutablePointer<Float>
        var threads: Int
        /// Workers' scratch slots in `workspace` (`maximumWorkers`, or 1 for a band's pass).
        var slots: Int

        func run(timer: inout PhaseTimer?) {
            let g = geometry, perImage = g.tileCount, tileCount = images * perImage
            let (channels, filters, images) = (self.channels, self.filters, self.images)
            let v = workspace
            // M, or streamed the packed tiles, follows V; the workers' scratch follows that.
            let m = v + positions * channels * tileCount
            let scratch = m + positions * (weights.isStreamed ? channels : filters) * tileCount
            let scratchSize = Winograd.scratchCount(tileRows: g.tileRows, tileColumns: g.tileColumns, images: images,
                                                    outWidth: g.outWidth, packedChannels: channels)
            let input = self.input
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

            let (output, epilogue, pooled) = (self.output, self.epilogue, self.pooled)
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
