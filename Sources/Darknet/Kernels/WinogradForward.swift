extension Winograd {
    /// One 3×3 stride-1 convolution of `batch` images through F(m×m, 3×3), m = `variant.tile`.
    ///
    /// Image `b` is read at `input + b·inputStride` (`channels × height × width`, channel `c`'s
    /// plane at `c·inputChannelStride`, default `height·width`) and written at
    /// `output + b·outputStride` (`filters × outHeight × outWidth`, `outHeight = height + 2·pad − 2`,
    /// filter `f`'s plane at `f·outputChannelStride`, default `outHeight·outWidth`); the images'
    /// tiles are transformed together and multiplied image by image (the calls an image gets
    /// alone). `Network`'s batches are channel-major (`C × batch × H × W`): image strides of one
    /// plane, channel strides of `batch` planes. `transformed` is
    /// `transformWeights`' layout; `workspace` holds `workspaceCount(…)` floats. The timer's
    /// `im2col` phase gets the input transform, `gemm` the products and `epilogue` the output
    /// transform with bias and activation. Pre-transformed layers with small weights run each
    /// pass of one image in row parts, each worker taking its rows through all three phases
    /// (`Winograd.rowParts`, `Block.runParts`); the others share every phase out (`Block.run`).
    ///
    /// `pooled` (filter-major, not streamed, even output sizes): a 2×2 stride-2 `[maxpool]`
    /// follows (`Maxpool.halves`) and the output transform pools each pair of output rows
    /// straight into it; `output` is then not written.
    ///
    /// `streamed` (F(2×2) filter-major, F(4×4) `.packed`): `transformed` holds the plain weights in
    /// `reorderTapMajor` (F(2×2)) or `reorderPanels` (F(4×4)) order and the products transform
    /// them block by block (`streamedProducts`, `streamedPackedProducts`; the `gemm` phase then
    /// includes the weight and output transforms), with `workspaceCount(…, streamed: true)`
    /// floats of workspace. Streamed F(4×4) writes its tiles packed for the kernel as it
    /// transforms them (`transformInputPacked`) where `packsTilesDirectly` allows.
    ///
    /// `orientation` must be the one `transformed` was made for (`.tileMajor`: the products and
    /// the output transform of `WinogradTileMajor.swift`; not streamed). `residual` (laid out as
    /// `output`) is added after the activation (`Convolutional.biasActivation`).
    static func forward(_ variant: Variant, input: UnsafePointer<Float>, channels: Int, height: Int, width: Int, pad: Int,
                        output: UnsafeMutablePointer<Float>, filters: Int, outHeight: Int, outWidth: Int,
                        transformed: UnsafePointer<Float>, biases: UnsafePointer<Float>, activation: Activation,
                        workspace: UnsafeMutablePointer<Float>, batch: Int = 1, inputStride: Int = 0, outputStride: Int = 0,
                        inputChannelStride: Int? = nil, outputChannelStride: Int? = nil, streamed: Bool = false,
                        orientation: Orientation = .filterMajor, residual: UnsafePointer<Float>? = nil,
                        pooled: PooledOutput? = nil, timer: inout PhaseTimer?) {
        precondition(!streamed || (variant == .f2 && orientation == .filterMajor) || (variant == .f4 && orientation == .packed),
                     "Winograd.forward: streamed F(2×2) runs filter-major, streamed F(4×4) packed")
        precondition(pooled == nil || (!streamed && orientation != .tileMajor && outHeight % 2 == 0 && outWidth % 2 == 0),
                     "Winograd.forward: only filter-major products of even outputs are pooled")
        let grid = tiles(variant, outHeight: outHeight, outWidth: outWidth)
        let pass = blocking(variant, channels: channels, filters: filters, tileRows: grid.rows, tileColumns: grid.columns,
                            batch: batch, streamed: streamed)
        var block = Block(variant: variant, input: input, channels: channels, output: output, filters: filters, transformed: transformed,
                          biases: biases, activation: activation, workspace: workspace, streamed: streamed,
                          orientation: orientation, residual: residual, pooled: pooled, images: pass.images,
                          inputStride: inputStride, outputStride: outputStride,
                          inputChannelStride: inputChannelStride ?? height * width,
                          outputChannelStride: outputChannelStride ?? outHeight * outWidth,
                          geometry: Geometry(height: height, width: width, pad: pad, outHeight: outHeight, outWidth: outWidth,
                                             firstTileRow: 0, tileRows: pass.tileRows, tileColumns: grid.columns))
        for image in Swift.stride(from: 0, to: batch, by: pass.images) {
            block.input = input + image * inputStride
            block.output = output + image * outputStride
            block.residual = residual.map { $0 + image * outputStride }
            block.pooled = pooled.map { $0.advanced(images: image) }
            for first in Swift.stride(from: 0, to: grid.rows, by: pass.tileRows) {
                block.geometry.firstTileRow = first
                block.geometry.tileRows = min(pass.tileRows, grid.rows - first)
                let parts = block.rowParts
                if parts > 1 { block.runParts(parts, timer: &timer) } else { block.run(timer: &timer) }
            }
        }
    }

    /// The `.packed` products: for each position (split across workers) and image, the image's
    /// tiles of `V[ξ]` packed into the worker's scratch (`scratch + worker · scratchSize`, which
    /// the input transform no longer needs), then `M[ξ] = U[ξ] · V[ξ]` by the kernel on the
    /// weights packed at load. One call per position and image, as filter-major.
    static func packedProducts(positions: Int, channels: Int, filters: Int, transformed: UnsafePointer<Float>,
                               v: UnsafePointer<Float>, m: UnsafeMutablePointer<Float>, tileCount: Int, perImage: Int,
                               images: Int, scratch: UnsafeMutablePointer<Float>, scratchSize: Int) {
        guard let kernel = PackedGEMM.kernel else { preconditionFailure("Winograd: packed weights without a packed kernel") }
        Parallel.forWorkers(of: positions, work: filters * channels * tileCount, maximumWorkers: maximumWorkers) { worker, range in
            let tiles = scratch + worker * scratchSize
            for position in range {
                for b in 0..<images {
                    PackedGEMM.packColumns(kernel, v + position * channels * tileCount + b * perImage, columns: perImage,
                                           k: channels, ldx: tileCount, into: tiles)
                    PackedGEMM.multiply(kernel, packedWeights: transformed + position * filters * channels, rows: filters,
                                        rowRange: 0..<filters, packedColumns: tiles, columns: perImage, columnRange: 0..<perImage,
                                        k: channels, c: m + position * filters * tileCount + b * perImage, ldc: tileCount)
                }
            }
        }
    }

    /// Floats of `V` and `M` processed at a time (10 MB): large images are transformed and
    /// multiplied in blocks of tile rows, so the workspace stays small (yolov3's 208×208 layer
    /// would otherwise need 37 MB). The whole batch goes through one pass when it fits.
    nonisolated(unsafe) static var blockFloats = 5 << 19

    /// Images and tile rows per pass: the whole batch when it fits `blockFloats`, else one image
    /// at a time in passes of equal tile rows (the last may have one row fewer). A tile takes V
    /// and M (`channels + filters` floats a position), or streamed F(4×4) V, its packed copy and
    /// the streamed workers' blocks of M (`2·channels + streamedWorkers · streamedPackedBlockFilters`).
    static func blocking(_ variant: Variant, channels: Int, filters: Int, tileRows: Int, tileColumns: Int,
                         batch: Int, streamed: Bool = false) -> (images: Int, tileRows: Int) {
        let perTile = streamed && variant == .f4 ? 2 * channels + streamedWorkers * streamedPackedBlockFilters : channels + filters
        let perTileRow = variant.positions * perTile * tileColumns
        if perTileRow * tileRows * batch <= blockFloats { return (batch, tileRows) }
        let most = max(1, min(tileRows, blockFloats / perTileRow))
        let passes = (tileRows + most - 1) / most
        return (1, (tileRows + passes - 1) / passes)
    }

    /// Where a fused 2×2 stride-2 `[maxpool]` writes: image `b`, filter `f`'s
    /// `outHeight/2 × outWidth/2` plane at `base + b·imageStride + f·channelStride`.
    struct PooledOutput {
        var base: UnsafeMutablePointer<Float>
        var imageStride: Int
        var channelStride: Int

        func advanced(images: Int = 0, filters: Int = 0) -> PooledOutput {
            PooledOutput(base: base + images * imageStride + filters * channelStride, imageStride: imageStride,
                         channelStride: channelStride)
        }
    }

    /// Workers that get their own scratch (more `GEMM.threads` than this share the work among this many).
    static let maximumWorkers = 8

    struct Geometry {
        var height, width, pad, outHeight, outWidth: Int
        /// The block of tile rows this pass covers.
        var firstTileRow, tileRows, tileColumns: Int
    }

    /// One pass: `images` images × the geometry's tile rows, through the three phases.
    struct Block {
        var variant: Variant
        var input: UnsafePointer<Float>
        var channels: Int
        var output: UnsafeMutablePointer<Float>
        var filters: Int
        var transformed: UnsafePointer<Float>
        var biases: UnsafePointer<Float>
        var activation: Activation
        var workspace: UnsafeMutablePointer<Float>
        var streamed: Bool
        var orientation: Orientation
        var residual: UnsafePointer<Float>?
        var pooled: PooledOutput?
        var images: Int
        var inputStride: Int
        var outputStride: Int
        var inputChannelStride: Int
        var outputChannelStride: Int
        var geometry: Geometry

        func run(timer: inout PhaseTimer?) {
            let g = geometry
            let variant = self.variant
            let positions = variant.positions
            let perImage = g.tileRows * g.tileColumns
            // The tile-major extras when the workspace has them (`workspaceCount`, `tileMajorRoom`):
            // each image's tiles padded to `tileMajorImageRows`, M's rows to `tileMajorRowStride`.
            let imageTiles = tiles(variant, outHeight: g.outHeight, outWidth: g.outWidth)
            let room = !streamed && tileMajorRoom(tilesPerImage: imageTiles.rows * imageTiles.columns)
            let imageRows = orientation == .tileMajor && room ? tileMajorImageRows(tiles: perImage) : perImage
            let tileCount = imageRows * images
            let v = workspace
            // Streamed, M is per worker (`streamedProducts`): the scratch follows V (streamed
            // F(4×4): follows the packed tiles, which take M's place).
            let m = workspace + positions * channels * tileCount
            let rowStride = orientation == .tileMajor ? tileMajorRowStride(filters: filters, room: room) : filters
            let scratch = streamed ? (variant == .f4 ? m + positions * channels * tileCount : m)
                : m + positions * rowStride * tileCount
            let scratchSize = scratchCount(variant, tileColumns: g.tileColumns, tileRows: g.tileRows, images: images,
                                           tileMajor: room, packedChannels: streamed ? 0 : packedChannels(channels))
            let (channels, filters, images) = (self.channels, self.filters, self.images)
            let (input, output, inputStride, outputStride) = (self.input, self.output, self.inputStride, self.outputStride)
            let plane = inputChannelStride, outPlane = outputChannelStride
            // Streamed F(4×4): the tiles packed for the kernel take M's place, and with
            // `packsTilesDirectly` the input transform writes them there (V only holds each
            // worker's group of channels on the way, `transformInputPacked`).
            let packedTiles = m
            let kernel = PackedGEMM.kernel
            let direct = streamed && variant == .f4 && packsTilesDirectly(channels: channels, images: images)

            if direct, let kernel {
                transformInputPacked(kernel, input: input, channels: channels, images: images, inputStride: inputStride,
                                     plane: plane, g, perImage: perImage, own: v, rows: scratch, rowsStride: scratchSize,
                                     into: packedTiles)
            } else {
                Parallel.forWorkers(of: images * channels, work: images * channels * perImage * 64,
                                    maximumWorkers: maximumWorkers) { worker, range in
                    let rows = scratch + worker * scratchSize
                    for item in range {
                        let b = item / channels, c = item % channels
                        let tiles = v + c * tileCount + b * imageRows
                        transformInput(variant, input + b * inputStride + c * plane, g,
                                       into: tiles, positionStride: channels * tileCount, rows: rows)
                        if imageRows > perImage {
                            for position in 0..<positions {
                                (tiles + position * channels * tileCount + perImage).update(repeating: 0, count: imageRows - perImage)
                            }
                        }
                    }
                }
            }
            timer?.lap(\.im2col)

            let (biases, activation, residual, pooled) = (self.biases, self.activation, self.residual, self.pooled)
            if orientation == .tileMajor {
                tileMajorProducts(positions: positions, channels: channels, filters: filters, transformed: transformed,
                                  v: v, m: m, rowStride: rowStride, tileCount: tileCount, imageRows: imageRows, images: images)
                timer?.lap(\.gemm)
                transformOutputTileMajor(variant, m, g, filters: filters, rowStride: rowStride, tileCount: tileCount,
                                         imageRows: imageRows, images: images,
                                         output: output, outputStride: outputStride, outPlane: outPlane,
                                         biases: biases, activation: activation, residual: residual,
                                         scratch: room ? (scratch, scratchSize) : nil)
                timer?.lap(\.epilogue)
                return
            }
            let transformed = self.transformed
            // Streamed: the output transform of filter f's rows of a worker's block of M, image by
            // image, while they are in the worker's caches (a local function: passed non-escaping,
            // it allocates nothing).
            func finish(_ worker: Int, _ f: Int, _ mPlane: UnsafePointer<Float>, _ positionStride: Int) {
                for b in 0..<images {
                    transformOutput(variant, mPlane + b * perImage, g, positionStride: positionStride,
                                    into: output + b * outputStride + f * outPlane, biases: biases + f, activation: activation,
                                    rows: scratch + worker * scratchSize,
                                    residual: residual.map { $0 + b * outputStride + f * outPlane })
                }
            }
            if streamed && variant == .f4 {
                // Each image's tiles of every position packed once (unless the input transform
                // wrote them packed), then the blocks of filters as above.
                guard let kernel else { preconditionFailure("Winograd: streamed F(4×4) without a packed kernel") }
                if !direct {
                    Parallel.forChunks(of: positions * images, work: positions * channels * tileCount) { range in
                        for item in range {
                            let (position, b) = item.quotientAndRemainder(dividingBy: images)
                            PackedGEMM.packColumns(kernel, v + position * channels * tileCount + b * perImage, columns: perImage,
                                                   k: channels, ldx: tileCount, into: packedTiles + item * channels * perImage)
                        }
                    }
                }
                streamedPackedProducts(panels: transformed, channels: channels, filters: filters, packedTiles: packedTiles,
                                       tileCount: tileCount, perImage: perImage, images: images,
                                       scratch: scratch + maximumWorkers * scratchSize, finish: finish)
                timer?.lap(\.gemm)
                return
            }
            if streamed {
                // Each worker's block of filters goes through weight transform, products and
                // output transform in one go, while its block of M is still in the worker's caches.
                streamedProducts(taps: transformed, channels: channels, filters: filters, v: v, tileCount: tileCount,
                                 perImage: perImage, images: images, scratch: scratch + maximumWorkers * scratchSize,
                                 finish: finish)
                timer?.lap(\.gemm)
                return
            }

            // The independent products (one per position and image), split across workers by
            // position, each a single-threaded sgemm: the same calls whatever the thread count, and
            // an image's tiles get the call they get alone (see `GEMM` on determinism).
            if orientation == .packed {
                packedProducts(positions: positions, channels: channels, filters: filters, transformed: transformed,
                               v: v, m: m, tileCount: tileCount, perImage: perImage, images: images,
                               scratch: scratch, scratchSize: scratchSize)
            } else {
                Parallel.forChunks(of: positions, work: filters * channels * tileCount) { range in
                    for position in range {
                        for b in 0..<images {
                            GEMM.serial(m: filters, n: perImage, k: channels,
                                        a: transformed + position * filters * channels, lda: channels,
                                        b: v + position * channels * tileCount + b * perImage, ldb: tileCount,
                                        c: m + position * filters * tileCount + b * perImage, ldc: tileCount)
                        }
                    }
                }
            }
            timer?.lap(\.gemm)

            // The rows of M of `group` adjacent filters are transformed together (`outputGroup`).
            let group = outputGroup(variant, tileCount: tileCount)
            Parallel.forWorkers(of: (filters + group - 1) / group, work: images * filters * perImage * 64,
                                maximumWorkers: maximumWorkers) { worker, range in
                for item in range {
                    let f = item * group
                    transformOutput(variant, m + f * tileCount, g, positionStride: filters * tileCount,
                                    filters: min(group, filters - f), images: images,
                                    into: output + f * outPlane, outputStride: outputStride, outPlane: outPlane,
                                    biases: biases + f, activation: activation, rows: scratch + worker * scratchSize,
                                    residual: residual.map { $0 + f * outPlane }, pooled: pooled?.advanced(filters: f))
                }
            }
            timer?.lap(\.epilogue)
        }
    }
}
