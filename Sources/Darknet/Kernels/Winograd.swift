/// Winograd convolution F(m×m, 3×3), m = 4 or 2, for 3×3 stride-1 layers (groups 1, any
/// padding): input `C×H×W` → `filters × outH × outW`, each m×m output tile from an
/// (m+2)×(m+2) input tile with (m+2)² multiplications per (filter, channel) instead of 9m²
/// (F(4×4): 36 instead of 144; F(2×2): 16 instead of 36). Lavin & Gray, "Fast Algorithms for
/// Convolutional Neural Networks" (2015), with their `Bᵀ`, `G`, `Aᵀ` matrices.
///
/// The products for the (m+2)² transform positions ξ are OpenBLAS GEMMs:
/// `M[ξ] (filters × tiles) = U[ξ] (filters × C) · V[ξ] (C × tiles)`, where `U = G g Gᵀ` are the
/// weights transformed once at load (`transformWeights`) and `V = Bᵀ d B` the input tiles
/// transformed per forward. The output transform `Y = Aᵀ M A` adds the bias and applies the
/// activation in the same pass (darknet's `add_bias` + `activate_array`). The transforms run
/// over whole planes of tiles so their inner loops are contiguous and vectorise.
///
/// darknet computes the same sums in a different order (im2col + GEMM), so the results
/// differ by float rounding only: `WinogradTests` bounds the difference against the naive
/// reference relative to the sum of |products|. F(4×4) holds 4× the 3×3 weights, F(2×2) 16/9×.
enum Winograd {
    enum Variant: Int, Sendable {
        case f2 = 2
        case f4 = 4

        /// Output tile side m.
        var tile: Int { rawValue }
        /// Input tile side m + 2.
        var window: Int { rawValue + 2 }
        /// Transform positions (m + 2)².
        var positions: Int { window * window }
    }

    /// How the products `M[ξ]` are computed and laid out (`Winograd.forward` reads the layout
    /// from the transformed weights, so a layer's orientation is fixed when they are made).
    enum Orientation: Sendable {
        /// `M[ξ]` (filters × tiles) = `U[ξ]` (filters × C) · `V[ξ]` (C × tiles): `U` stored
        /// `positions × filters × C`. OpenBLAS's kernel then runs along the tiles.
        case filterMajor
        /// `M[ξ]ᵀ` (tiles × filters) = `V[ξ]ᵀ` · `U[ξ]ᵀ` (C × filters): `U` stored
        /// `positions × C × filters`, the tiles read through the transpose flag
        /// (`WinogradTileMajor.swift`). OpenBLAS's kernel then runs along the filters.
        case tileMajor
        /// Filter-major products through OpenBLAS's kernel with `U[ξ]` packed at load
        /// (`PackedGEMM`): `U` stored `positions × filters × C`, each position in the kernel's panel
        /// layout; M laid out as filter-major. Chosen whenever `PackedGEMM.active` has a kernel.
        case packed
    }

    /// Most tiles per image for which the products run tile-major. On few tiles the filter-major
    /// GEMMs are thin along the dimension OpenBLAS's kernel blocks (16 rows with the `Zen` kernel).
    /// Single-threaded sgemm, 16 products of filters × channels × tiles, filter-major against
    /// tile-major GFLOPS (2026-11-23, medians of 31): 1024 × 512 (yolov3's and yolov3-tiny's 13×13
    /// layers under F(2×2)) 53.5 / 62.3 on 49 tiles, 61.3 / 70.8 on 100 (19×19), 62.1 / 71.8 on
    /// 64, 47.9 / 63.3 on 36; 512 × 256 25.1 / 29.4 and 512 × 512 50.1 / 56.3 on 49; on 169 tiles
    /// a tie (74.5 / 78.5 at 1024 × 512, 59.6 / 56.1 at 256 × 384, 70.1 / 73.0 at 512 × 256).
    static let tileMajorMaximumTiles = 128

    /// The orientation of a layer of `channels` inputs and `filters` outputs of `outHeight ×
    /// outWidth`: tile-major on few tiles (`tileMajorMaximumTiles`) unless the layer has more
    /// channels than filters (512 × 1024 on 49 tiles: 44.1 / 44.6 and 53.2 / 52.5 GFLOPS, and in
    /// the engine the tile-major output transform then cost more than the products saved).
    static func orientation(_ variant: Variant, channels: Int, filters: Int, outHeight: Int, outWidth: Int) -> Orientation {
        if PackedGEMM.active != nil { return .packed }
        let t = tiles(variant, outHeight: outHeight, outWidth: outWidth)
        return tileMajorRoom(tilesPerImage: t.rows * t.columns) && channels <= filters ? .tileMajor : .filterMajor
    }

    /// True when the workspace of an image of `tilesPerImage` tiles holds the tile-major
    /// extras (padded rows of M, `tileMajorRowStride`; each worker's output transform scratch,
    /// `tileMajorScratchCount`): for the sizes `orientation` makes tile-major. Decided from the
    /// shape alone, as the workspace is sized; tile-major weights on a larger image (weights
    /// prepared for another input size) still run, without the padding and with stack scratch.
    static func tileMajorRoom(tilesPerImage: Int) -> Bool { tilesPerImage <= tileMajorMaximumTiles }

    /// Tiles covering an `outHeight × outWidth` output.
    static func tiles(_ variant: Variant, outHeight: Int, outWidth: Int) -> (rows: Int, columns: Int) {
        ((outHeight + variant.tile - 1) / variant.tile, (outWidth + variant.tile - 1) / variant.tile)
    }

    /// Workspace floats `forward` needs: `V` (positions × C × tiles of a pass), `M` (positions ×
    /// filters × tiles of a pass) and per-worker scratch (see `blocking`). Streamed, `M` is
    /// replaced by each streamed worker's blocks of transformed weights and of M (streamed
    /// F(4×4), which runs through `PackedGEMM`, by the packed tiles and those blocks).
    static func workspaceCount(_ variant: Variant, channels: Int, filters: Int, outHeight: Int, outWidth: Int,
                               batch: Int = 1, streamed: Bool = false) -> Int {
        let t = tiles(variant, outHeight: outHeight, outWidth: outWidth)
        let pass = blocking(variant, channels: channels, filters: filters, tileRows: t.rows, tileColumns: t.columns, batch: batch,
                            streamed: streamed)
        let room = !streamed && tileMajorRoom(tilesPerImage: t.rows * t.columns)
        // Tile-major products take each image's tiles padded to `tileMajorImageRows`.
        let perImage = t.columns * pass.tileRows
        let tileCount = (room ? tileMajorImageRows(tiles: perImage) : perImage) * pass.images
        let scratch = scratchCount(variant, tileColumns: t.columns, tileRows: pass.tileRows, images: pass.images,
                                   tileMajor: room, packedChannels: streamed ? 0 : packedChannels(channels)) * maximumWorkers
        if streamed && variant == .f4 {
            // V, the tiles packed for the kernel, and each streamed worker's blocks (`WinogradStreamedPacked.swift`).
            return 2 * variant.positions * channels * tileCount + scratch
                + streamedPackedScratchCount(variant, channels: channels, tileCount: tileCount) * streamedWorkers
        }
        if streamed {
            return variant.positions * channels * tileCount + scratch
                + streamedScratchCount(channels: channels, tileCount: tileCount) * streamedWorkers
        }
        // Tile-major products may pad each tile's row of M by 16 floats (`tileMajorRowStride`).
        let rowPad = tileMajorRowStride(filters: filters, room: room) - filters
        return variant.positions * (channels + filters + rowPad) * tileCount + scratch
    }

    /// Scratch of one worker: the input transform's row-phase buffers (window × m × (rows + 1)
    /// × columns, plus m phase rows), the output transform's m·window + m² planes of tiles for
    /// `outputGroup` filters of the pass's `images` images (`outputScratchCount`), (`tileMajor`)
    /// the tile-major output transform's (`tileMajorScratchCount`), or one image's `V[ξ]` packed
    /// for the kernel (`packedChannels` × the pass's tiles of an image, `PackedGEMM.packColumns`).
    static func scratchCount(_ variant: Variant, tileColumns: Int, tileRows: Int, images: Int = 1,
                             tileMajor: Bool = false, packedChannels: Int = 0) -> Int {
        let m = variant.tile, w = variant.window
        let input = w * m * (tileRows + 1) * tileColumns + m * (tileColumns + 1)
        // The output transform's planes, and the pair of rows a fused pool finishes at a time.
        let output = outputScratchCount(variant, tileCount: images * tileRows * tileColumns) + 2 * m * tileColumns
        let tileMajorOutput = tileMajor ? tileMajorScratchCount(variant) : 0
        let packedTiles = packedChannels * tileRows * tileColumns
        return max(input, output, tileMajorOutput, packedTiles) + 16
    }

    /// The channels whose packed tiles a worker's scratch holds: all of them when the products
    /// go through `PackedGEMM` (pre-transformed layers are then `.packed`), else none.
    static func packedChannels(_ channels: Int) -> Int { PackedGEMM.active != nil ? channels : 0 }

    /// Floats the filter-major output transform may use per worker for several filters at once
    /// (`outputGroup`): 128 KB, a quarter of the 512 KB L2 of the Zen cores it was measured on.
    /// (256 KB also grouped the 104×104 and 208×208 layers' 572–676 tiles by two, for no
    /// measurable gain and 1.4 MB more workspace: eight workers' slices, all prefaulted.)
    /// Tests set 0 to transform one filter at a time.
    nonisolated(unsafe) static var outputGroupFloats = 1 << 15
    /// Most filters transformed together.
    static let outputGroupMaximum = 4

    /// Floats of one worker's output transform scratch for a pass of `tileCount` tiles (all its
    /// images): `outputGroup` filters' z and Y planes. Grows with `tileCount`, so a pass's last,
    /// shorter block of tile rows fits in the slice sized for a full one.
    static func outputScratchCount(_ variant: Variant, tileCount: Int) -> Int {
        let perFilter = (variant.tile * variant.window + variant.tile * variant.tile) * tileCount
        return max(perFilter, min(outputGroupMaximum * perFilter, outputGroupFloats))
    }

    /// Filters whose rows of M the filter-major output transform reads together (`transformOutput`):
    /// their rows are adjacent, so each of the (m+2)² positions is then one run of `group ·
    /// tileCount` floats instead of `group` runs of `tileCount` 36 or 16 positions apart, which
    /// the worker's hardware prefetch follows better. yolov3's 52×52 F(4×4) and 26×26 F(2×2)
    /// layers (169 tiles) take 4 filters at a time, its 104×104 and 208×208 ones one.
    static func outputGroup(_ variant: Variant, tileCount: Int) -> Int {
        let perFilter = (variant.tile * variant.window + variant.tile * variant.tile) * tileCount
        return max(1, outputScratchCount(variant, tileCount: tileCount) / perFilter)
    }

    /// `U = G g Gᵀ` for every filter and channel, laid out `positions × filters × channels`
    /// (position major) so `U[ξ]` is a row-major `filters × channels` GEMM operand, or
    /// `positions × channels × filters` for `.tileMajor` (the same values), or each position's
    /// plane packed for the kernel for `.packed` (`packPositions`). Computed in Double.
    /// `weights` is darknet's `filters × channels × 3 × 3`.
    static func transformWeights(_ variant: Variant, _ weights: UnsafeBufferPointer<Float>,
                                 filters: Int, channels: Int, orientation: Orientation = .filterMajor) -> [Float] {
        transformWeights(variant, weights, filters: filters, channels: channels, lanes: 4, orientation: orientation)
    }

    /// `transformWeights` with `lanes` kernels transformed together (4: `SIMD4<Double>`, the
    /// same operations lane by lane, so the same bits; 1: one kernel at a time, the reference).
    ///
    /// Kernels are taken in the order they are stored in `U` (k = f·channels + c, or c·filters + f
    /// tile-major), so each block's positions are written as runs; tile-major, the four kernels
    /// of a lane group are one filter apart (`channels · 9` floats).
    static func transformWeights(_ variant: Variant, _ weights: UnsafeBufferPointer<Float>,
                                 filters: Int, channels: Int, lanes: Int, orientation: Orientation = .filterMajor) -> [Float] {
        // Every element is written below, so the array starts uninitialised (no zeroing pass).
        let count = variant.positions * filters * channels
        return [Float](unsafeUninitializedCapacity: count) { u, initialized in
            let plane = filters * channels
            nonisolated(unsafe) let u = u
            // Fresh memory, mapped in 2 MiB slices by the workers before the scattered writes below.
            Prefault.write(UnsafeMutableRawBufferPointer(u), parallel: true)
            // Kernels (k = f·channels + c) in blocks split across workers (load time: yolov3's
            // 1.8M kernels took ~0.2 s on one core one at a time). Each block is transformed into
            // a local buffer, then written as one run per position: writing kernel by kernel
            // touched `positions` places `plane` floats apart, and with planes of 2 MiB (yolov3's
            // 1024 × 512 layers) all of them fall in one cache set.
            let blockSize = 256
            Parallel.forChunks(of: (plane + blockSize - 1) / blockSize, work: plane * 64) { range in
                withUnsafeTemporaryAllocation(of: Float.self, capacity: variant.positions * blockSize) { local in
                    for block in range {
                        let first = block * blockSize, n = min(blockSize, plane - first)
                        let target = local.baseAddress!
                        var j = 0
                        switch orientation {
                        case .filterMajor, .packed:
                            let source = weights.baseAddress! + first * 9
                            if lanes == 4 {
                                while j + 4 <= n {
                                    transformFour(variant, source + j * 9, kernelStride: 9, into: target + j, stride: blockSize)
                                    j += 4
                                }
                            }
                            while j < n {
                                transformOne(variant, source + j * 9, into: target + j, stride: blockSize)
                                j += 1
                            }
                        case .tileMajor:
                            while j < n {
                                let (c, f) = (first + j).quotientAndRemainder(dividingBy: filters)
                                let source = weights.baseAddress! + (f * channels + c) * 9
                                if lanes == 4, j + 4 <= n, f + 4 <= filters {
                                    transformFour(variant, source, kernelStride: channels * 9, into: target + j, stride: blockSize)
                                    j += 4
                                } else {
                                    transformOne(variant, source, into: target + j, stride: blockSize)
                                    j += 1
                                }
                            }
                        }
                        for position in 0..<variant.positions {
                            (u.baseAddress! + position * plane + first)
                                .initialize(from: local.baseAddress! + position * blockSize, count: n)
                        }
                    }
                }
            }
            if orientation == .packed { packPositions(u.baseAddress!, positions: variant.positions, filters: filters, channels: channels) }
            initialized = count
        }
    }

    /// Packs each position's `filters × channels` plane of filter-major `U` in place into the
    /// panel layout of `PackedGEMM.packWeights`, a position per worker through a copy aside.
    static func packPositions(_ u: UnsafeMutablePointer<Float>, positions: Int, filters: Int, channels: Int) {
        guard let kernel = PackedGEMM.kernel else { preconditionFailure("Winograd.packPositions: no packed kernel") }
        let plane = filters * channels
        nonisolated(unsafe) let u = u
        Parallel.forChunks(of: positions, work: positions * plane) { range in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: plane) { aside in
                for position in range {
                    let target = u + position * plane
                    aside.baseAddress!.update(from: target, count: plane)
                    PackedGEMM.packWeights(kernel, aside.baseAddress!, rows: filters, k: channels, ldw: channels, into: target)
                }
            }
        }
    }

    /// One kernel `g` (9 floats): element (row, column) of `U` goes to `out[(row·window + column)·stride]`.
    @inline(__always)
    private static func transformOne(_ variant: Variant, _ g: UnsafePointer<Float>,
                                     into out: UnsafeMutablePointer<Float>, stride: Int) {
        let tap = { (t: Int) in Double(g[t]) }
        let store = { (index: Int, value: Double) in out[index * stride] = Float(value) }
        switch variant {
        case .f2: kernelF2(tap, store)
        case .f4: kernelF4(tap, store)
        }
    }

    /// Four kernels `kernelStride` floats apart in the lanes of `SIMD4<Double>`: element (row,
    /// column) of kernel `i` goes to `out[(row·window + column)·stride + i]`.
    @inline(__always)
    private static func transformFour(_ variant: Variant, _ g: UnsafePointer<Float>, kernelStride s: Int,
                                      into out: UnsafeMutablePointer<Float>, stride: Int) {
        let tap = { (t: Int) in SIMD4<Double>(Double(g[t]), Double(g[s + t]), Double(g[2 * s + t]), Double(g[3 * s + t])) }
        let store = { (index: Int, value: SIMD4<Double>) in
            UnsafeMutableRawPointer(out + index * stride).storeBytes(of: SIMD4<Float>(value), as: SIMD4<Float>.self)
        }
        switch variant {
        case .f2: kernelF2(tap, store)
        case .f4: kernelF4(tap, store)
        }
    }

    /// One kernel's `U = G g Gᵀ` for F(2×2), in Double (or four kernels, one per lane): `tmp = G g`
    /// column by column, then each row of `tmp` times `Gᵀ`; element (row, column) is
    /// `store(row·4 + column, value)`. `tap(t)` is the kernel's tap t (row-major 3×3).
    /// Lavin's `G` rows: (1, 0, 0), (½, ½, ½), (½, −½, ½), (0, 0, 1).
    @inline(__always)
    private static func kernelF2<T: TransformValue>(_ tap: (Int) -> T, _ store: (Int, T) -> Void) {
        @inline(__always) func G(_ g0: T, _ g1: T, _ g2: T) -> (T, T, T, T) {
            (g0, (g0 + g1 + g2) / 2, (g0 - g1 + g2) / 2, g2)
        }
        let c0 = G(tap(0), tap(3), tap(6))
        let c1 = G(tap(1), tap(4), tap(7))
        let c2 = G(tap(2), tap(5), tap(8))
        @inline(__always) func row(_ r: Int, _ a: T, _ b: T, _ c: T) {
            let t = G(a, b, c)
            store(r * 4, t.0)
            store(r * 4 + 1, t.1)
            store(r * 4 + 2, t.2)
            store(r * 4 + 3, t.3)
        }
        row(0, c0.0, c1.0, c2.0)
        row(1, c0.1, c1.1, c2.1)
        row(2, c0.2, c1.2, c2.2)
        row(3, c0.3, c1.3, c2.3)
    }

    /// The same for F(4×4) (6×6 out): Lavin's `G` rows (¼, 0, 0), (−⅙, −⅙, −⅙), (−⅙, ⅙, −⅙),
    /// (1/24, 1/12, ⅙), (1/24, −1/12, ⅙), (0, 0, 1).
    @inline(__always)
    static func kernelF4<T: TransformValue>(_ tap: (Int) -> T, _ store: (Int, T) -> Void) {
        @inline(__always) func G(_ g0: T, _ g1: T, _ g2: T) -> (T, T, T, T, T, T) {
            (g0 / 4, -(g0 + g1 + g2) / 6, -(g0 - g1 + g2) / 6, g0 / 24 + g1 / 12 + g2 / 6, g0 / 24 - g1 / 12 + g2 / 6, g2)
        }
        let c0 = G(tap(0), tap(3), tap(6))
        let c1 = G(tap(1), tap(4), tap(7))
        let c2 = G(tap(2), tap(5), tap(8))
        @inline(__always) func row(_ r: Int, _ a: T, _ b: T, _ c: T) {
            let t = G(a, b, c)
            store(r * 6, t.0)
            store(r * 6 + 1, t.1)
            store(r * 6 + 2, t.2)
            store(r * 6 + 3, t.3)
            store(r * 6 + 4, t.4)
            store(r * 6 + 5, t.5)
        }
        row(0, c0.0, c1.0, c2.0)
        row(1, c0.1, c1.1, c2.1)
        row(2, c0.2, c1.2, c2.2)
        row(3, c0.3, c1.3, c2.3)
        row(4, c0.4, c1.4, c2.4)
        row(5, c0.5, c1.5, c2.5)
    }
}

/// What the weight transform computes with: `Double`, or `SIMD4<Double>` for four kernels at
/// once (each lane the same IEEE operations as the scalar).
protocol TransformValue {
    static func + (lhs: Self, rhs: Self) -> Self
    static func - (lhs: Self, rhs: Self) -> Self
    static func / (lhs: Self, rhs: Double) -> Self
    static prefix func - (operand: Self) -> Self
}

extension Double: TransformValue {}
extension SIMD4: TransformValue where Scalar == Double {}
