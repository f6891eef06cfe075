/// Tile-major Winograd products (`Winograd.Orientation.tileMajor`), for outputs of few tiles
/// (yolov3's and yolov3-tiny's 13×13 layers: 49 tiles under F(2×2)).
///
/// `M[ξ]ᵀ` (tiles × filters) = `V[ξ]ᵀ` (tiles × C) · `U[ξ]ᵀ` (C × filters): the input transform's
/// `V[ξ]` (C × tiles, as filter-major) is read through the transpose flag, and the weights are
/// stored `positions × C × filters` (`transformWeights(…, orientation: .tileMajor)`). OpenBLAS
/// then blocks its kernel along the filters (hundreds) instead of the tiles (49, three 16-row
/// blocks and one row over). The output transform reads 16 filters of a tile as one vector.
///
/// Bits: the output transform does, lane by lane, the operations of the filter-major one
/// (`outputTransform4`/`6` on 16 filters, then bias + activation by
/// `Convolutional.biasActivation`), so the outputs differ from filter-major only where OpenBLAS
/// rounds the products' sums differently. The calls depend on the shape alone: the same bits on
/// any thread count.
///
/// yolov3-tiny at 416 (2 threads, `benchmark`, 8 alternating processes, 2026-11-23), layer ms
/// (GEMM + output transform) filter-major → tile-major: 13×13 × 512 → 1024 9.68 (9.04 + 0.42) →
/// 8.10 (7.31 + 0.56); 256 → 512 2.50 → 2.31 and 2.72 → 2.36.
extension Winograd {
    /// Floats between two tiles' rows of `M[ξ]ᵀ`: the filters plus one cache line when the
    /// workspace has room for it (`room`: `tileMajorRoom`). With 512 or 1024 filters the rows
    /// would be 2 or 4 KiB apart, and the 16 positions of a tile, read together by the output
    /// transform, would all fall in one cache set.
    static func tileMajorRowStride(filters: Int, room: Bool) -> Int { room ? filters + 16 : filters }

    /// Columns of `V[ξ]` and rows of `M[ξ]ᵀ` that an image of `tiles` tiles takes in the
    /// tile-major products: `tiles` rounded up to a multiple of 4, the extra tiles zero in `V`
    /// (their rows of `M` are never read). OpenBLAS's `Zen` kernel runs these rows in blocks of 16,
    /// 8 and 4; a lone row left over cost more than three zero rows. yolov3's and yolov3-tiny's
    /// 13×13 layers under F(2×2) have 49 tiles (3 · 16 + 1): single-threaded sgemm, 16 products
    /// (C, alternating, medians of 21/41), 49 → 52 rows: 12.7 → 12.2 ms (1024 filters × 512
    /// channels), 3.45 → 3.21 ms (512 × 256). The rows of each product depend only on the shape,
    /// so the bits stay the same on any thread count.
    static func tileMajorImageRows(tiles: Int) -> Int { (tiles + 3) / 4 * 4 }

    /// `M[ξ]ᵀ = V[ξ]ᵀ · U[ξ]ᵀ` for every position and image: one single-threaded sgemm each, the
    /// positions split across workers. Image `b`'s tiles are rows `b·imageRows ..< (b+1)·imageRows`
    /// of each `M[ξ]ᵀ` (`tileMajorImageRows`; `tileCount` rows `rowStride` apart, positions
    /// `tileCount · rowStride` apart).
    static func tileMajorProducts(positions: Int, channels: Int, filters: Int, transformed: UnsafePointer<Float>,
                                  v: UnsafePointer<Float>, m: UnsafeMutablePointer<Float>, rowStride: Int, tileCount: Int,
                                  imageRows: Int, images: Int) {
        Parallel.forChunks(of: positions, work: filters * channels * tileCount) { range in
            for position in range {
                for b in 0..<images {
                    GEMM.serial(m: imageRows, n: filters, k: channels,
                                a: v + position * channels * tileCount + b * imageRows, lda: tileCount, transposeA: true,
                                b: transformed + position * channels * filters, ldb: filters,
                                c: m + (position * tileCount + b * imageRows) * rowStride, ldc: rowStride)
                }
            }
        }
    }

    /// Filters whose output transform runs together (two `SIMD8<Float>` per position: one cache line).
    static let tileMajorLanes = 16
    /// Filters of one work item of the output transform: 64 planes of a 13×13 output are 43 KB,
    /// which stay in the worker's caches from the tiles' writes to the bias and activation pass.
    static let tileMajorBlockFilters = 64

    /// Floats of one worker's scratch in `transformOutputTileMajor`: a tile's gathered
    /// positions, `z` and `Y`, 16 filters each.
    static func tileMajorScratchCount(_ variant: Variant) -> Int {
        let (tile, w) = (variant.tile, variant.window)
        return (w * w + tile * w + tile * tile) * tileMajorLanes
    }

    /// `Y = Aᵀ M A` + bias + activation from tile-major `M` (`tileMajorProducts`' layout) into
    /// each image's `filters × outHeight × outWidth` output (the block's tile rows).
    ///
    /// Work items are (image, 64 filters), split across workers. An item runs every tile, 16
    /// filters at a time (`transformTileTileMajor`), writing each tile's outputs into the 64
    /// planes, then adds bias and activation over the planes' rows (as filter-major does row by
    /// row), while they are still in the worker's caches. Its reads of M are runs of four cache
    /// lines. `scratch`: each worker's `tileMajorScratchCount` floats (`worker · size` apart), or
    /// nil to use the stack.
    static func transformOutputTileMajor(_ variant: Variant, _ m: UnsafePointer<Float>, _ g: Geometry, filters: Int,
                                         rowStride: Int, tileCount: Int, imageRows: Int, images: Int,
                                         output: UnsafeMutablePointer<Float>,
                                         outputStride: Int, outPlane: Int, biases: UnsafePointer<Float>,
                                         activation: Activation, residual: UnsafePointer<Float>?,
                                         scratch: (UnsafeMutablePointer<Float>, size: Int)?) {
        let perImage = g.tileRows * g.tileColumns
        let (lanes, tile) = (tileMajorLanes, variant.tile)
        let blockFilters = tileMajorBlockFilters
        let blocks = (filters + blockFilters - 1) / blockFilters
        let top = g.firstTileRow * tile
        let rows = min(g.outHeight - top, g.tileRows * tile)
        func run(_ range: Range<Int>, _ scratch: UnsafeMutablePointer<Float>) {
            for item in range {
                let (b, block) = item.quotientAndRemainder(dividingBy: blocks)
                let first = block * blockFilters, count = min(blockFilters, filters - first)
                let planes = output + b * outputStride + first * outPlane
                for ty in 0..<g.tileRows {
                    let y = top + ty * tile
                    for tx in 0..<g.tileColumns {
                        let t = ty * g.tileColumns + tx, x = tx * tile
                        for sub in Swift.stride(from: 0, to: count, by: lanes) {
                            transformTileTileMajor(variant, m + (b * imageRows + t) * rowStride + first + sub,
                                                   positionStride: tileCount * rowStride, count: min(lanes, count - sub),
                                                   into: planes + sub * outPlane + y * g.outWidth + x, filterStride: outPlane,
                                                   rowStride: g.outWidth, rows: min(tile, g.outHeight - y),
                                                   columns: min(tile, g.outWidth - x), scratch: scratch)
                        }
                    }
                }
                for i in 0..<count {
                    let at = b * outputStride + (first + i) * outPlane + top * g.outWidth
                    Convolutional.biasActivation(output + at, count: rows * g.outWidth, bias: biases[first + i],
                                                 activation: activation, adding: residual.map { $0 + at })
                }
            }
        }
        Parallel.forWorkers(of: images * blocks, work: images * filters * perImage * 64,
                            maximumWorkers: maximumWorkers) { worker, range in
            if let scratch {
                run(range, scratch.0 + worker * scratch.size)
            } else {
                withUnsafeTemporaryAllocation(of: Float.self, capacity: tileMajorScratchCount(variant)) {
                    run(range, $0.baseAddress!)
                }
            }
        }
    }

    /// One tile's m×m outputs for `count` (≤ 16) filters: position ξ of filter i at
    /// `m[ξ·positionStride + i]`; output (r, s) of filter i to `out[i·filterStride + r·rowStride + s]`
    /// for r below `rows` and s below `columns` (a tile past the output's edge is cut).
    /// The filter-major transform's two passes (`outputTransform`: `z = Aᵀ M` column by column,
    /// then `Y = z A`) with the 16 filters as the vector. Fewer than 16 filters are copied into a
    /// zero-padded local block first, so no read passes the last filter. `scratch`:
    /// `(window² + m·window + m²) · 16` floats.
    @inline(__always)
    private static func transformTileTileMajor(_ variant: Variant, _ m: UnsafePointer<Float>, positionStride: Int,
                                               count: Int, into out: UnsafeMutablePointer<Float>, filterStride: Int,
                                               rowStride: Int, rows: Int, columns: Int, scratch: UnsafeMutablePointer<Float>) {
        let lanes = tileMajorLanes, tile = variant.tile, w = variant.window
        let gathered = scratch
        let z = gathered + w * w * lanes, y = z + tile * w * lanes
        var (source, stride) = (m, positionStride)
        if count < lanes {
            gathered.initialize(repeating: 0, count: w * w * lanes)
            for position in 0..<(w * w) {
                for i in 0..<count { gathered[position * lanes + i] = source[position * stride + i] }
            }
            (source, stride) = (UnsafePointer(gathered), lanes)
        }
        outputTransform(variant, count: lanes, source, positionStride: stride, z: z, y: y)
        for r in 0..<rows {
            for s in 0..<columns {
                let values = y + (r * tile + s) * lanes, at = out + r * rowStride + s
                for i in 0..<count { at[i * filterStride] = values[i] }
            }
        }
    }
}
