// Passes cut into ranges of tile rows, each taken through all three phases (input transform,
// products, output transform) by one worker: the pre-transformed Winograd layers whose weights
// are small next to their V and M (`Winograd.rowParts`).

extension Winograd {
    /// Most bytes of transformed weights for which a pass is cut into row parts (`rowParts`). A
    /// var so tests can turn parts off.
    nonisolated(unsafe) static var partsWeightBytes = 1 << 20
    /// Row parts of a pass whose weights are small enough: a fixed number (the cut depends on the
    /// shape alone, so the bits are the same on any thread count).
    static let partsPerPass = 2

    /// How many ranges of tile rows a pass of `tileRows` rows is cut into when its layer's
    /// transformed weights (`positions × filters × channels` floats) take at most
    /// `partsWeightBytes`: `partsPerPass`, else 1 (the three phases each shared out over the whole pass).
    ///
    /// Each part goes through all three phases on one worker, so the V and M a worker reads are
    /// the ones it wrote, but every part reads all the weights. On this workplace's 2-vCPU Zen 4
    /// machines a 2-thread process spends spells of minutes in which data one core wrote reaches
    /// the other about 2.4× slower (a 256 KB hand-off between two pinned threads 4.5–6 → 11–13 µs,
    /// while each core alone computes and streams memory at full speed); in those spells yolov3
    /// runs about 40% slower (OpenCV about 12%), its layers with the largest V and M most of all.
    /// Alternating processes, 2 threads, 416 (2026-11-25, ms, whole passes → parts):
    ///
    /// - yolov3's layer 1 (stride 2, 208×208 output, 0.66 MB of weights): calm 9.6–9.9 → 9.6–9.8,
    ///   slow 22.0–22.4 → 13.7–17.9; its layer 3 (F(4×4), 208×208, 0.3 MB): calm 4.6–4.7 →
    ///   4.6–4.8, slow 10.7–10.9 → 6.4–8.3; the whole forward: calm 191–195 either way, slow
    ///   269–277 → 257–263.
    /// - yolov3-tiny (its layers 2 and 4, 74 and 295 KB, with their pools): calm 17.9 → 17.6,
    ///   slow 27.6–27.8 → 23.5–24.0.
    /// - Layers with more weights lost in parts, calm and slow alike: yolov3's layer 5 (2.7 MB)
    ///   7.7 → 8.5 calm, layer 12 (10.6 MB) 7.1 → 9.7, the 2×2-tile stride-2 layers 37 and 62
    ///   7.2 → 7.9 and 7.7 → 9.6. Streamed F(4×4) in parts (every part transforming all the
    ///   weights) gained in slow spells on the 104×104 layers only (6.0 → 5.2) and lost there
    ///   when calm (3.3 → 3.5), on the 52×52 and 26×26 layers in both.
    static func rowParts(positions: Int, filters: Int, channels: Int, tileRows: Int) -> Int {
        positions * filters * channels * MemoryLayout<Float>.stride <= partsWeightBytes ? min(partsPerPass, tileRows) : 1
    }

    /// Runs `part(i, first row, rows)` for the `parts` ranges of a pass's `tileRows` tile rows
    /// (part i: rows `tileRows·i/parts ..< tileRows·(i + 1)/parts`), each on one worker (at
    /// most `maximumWorkers`). `part` returns its seconds in the input and output transforms;
    /// the timer's lap gives the workers' means to `im2col` and `epilogue`, the rest to `gemm`.
    static func runRowParts(_ parts: Int, tileRows: Int, maximumWorkers: Int, timer: inout PhaseTimer?,
                            _ part: (_ index: Int, _ first: Int, _ rows: Int) -> (input: Double, output: Double)) {
        let workers = min(GEMM.threads, parts, maximumWorkers)
        let (input, output) = withUnsafeTemporaryAllocation(of: (Double, Double).self, capacity: workers) { seconds in
            seconds.initialize(repeating: (0, 0))
            nonisolated(unsafe) let seconds = seconds
            Parallel.forWorkers(of: parts, work: .max, maximumWorkers: workers) { worker, range in
                for index in range {
                    let first = tileRows * index / parts, end = tileRows * (index + 1) / parts
                    let spent = part(index, first, end - first)
                    seconds[worker].0 += spent.input
                    seconds[worker].1 += spent.output
                }
            }
            let n = Double(workers)
            return (seconds.reduce(0) { $0 + $1.0 } / n, seconds.reduce(0) { $0 + $1.1 } / n)
        }
        timer?.lap(\.gemm, shares: (\.im2col, input), (\.epilogue, output))
    }
}

extension Winograd {
    /// A part's products on the calling thread: `M[ξ] = U[ξ] · V[ξ]` for every position, with
    /// `tileCount` tiles, through the kernel on packed weights (each position's tiles packed into
    /// `scratch` first) or `GEMM.serial` on filter-major ones.
    static func serialProducts(positions: Int, channels: Int, filters: Int, transformed: UnsafePointer<Float>,
                               orientation: Orientation, v: UnsafePointer<Float>, m: UnsafeMutablePointer<Float>,
                               tileCount: Int, scratch: UnsafeMutablePointer<Float>) {
        if orientation == .packed {
            guard let kernel = PackedGEMM.kernel else { preconditionFailure("Winograd: packed weights without a packed kernel") }
            for position in 0..<positions {
                PackedGEMM.packColumns(kernel, v + position * channels * tileCount, columns: tileCount, k: channels,
                                       ldx: tileCount, into: scratch)
                PackedGEMM.multiply(kernel, packedWeights: transformed + position * filters * channels, rows: filters,
                                    rowRange: 0..<filters, packedColumns: scratch, columns: tileCount,
                                    columnRange: 0..<tileCount, k: channels, c: m + position * filters * tileCount, ldc: tileCount)
            }
        } else {
            for position in 0..<positions {
                GEMM.serial(m: filters, n: tileCount, k: channels, a: transformed + position * filters * channels, lda: channels,
                            b: v + position * channels * tileCount, ldb: tileCount,
                            c: m + position * filters * tileCount, ldc: tileCount)
            }
        }
    }
}

extension WinogradStride2 {
    /// `Winograd.rowParts` for a stride-2 layer's pass.
    static func rowParts(_ variant: Variant, channels: Int, filters: Int, tileRows: Int) -> Int {
        Winograd.rowParts(positions: variant.positions, filters: filters, channels: channels, tileRows: tileRows)
    }
}

extension WinogradStride2.Pass {
    /// This pass cut into `parts` ranges of tile rows (`Winograd.rowParts`), each run by one
    /// worker through all three phases (`runSerially`) with its own share of V and M (part i's
    /// tiles are the rows `tileRows·i/parts ..< tileRows·(i + 1)/parts`; its V and M sit where
    /// those tiles' would in the whole pass's workspace) and its own worker scratch. The timer's
    /// phases get the workers' mean seconds in the input and output transforms (`im2col`,
    /// `epilogue`) and the rest (`gemm`).
    func runParts(_ parts: Int, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
                  residual: UnsafePointer<Float>?, timer: inout PhaseTimer?) {
        let positions = variant.positions, tileCount = tileRows * tileColumns
        let scratch = workspace + positions * (channels + filters) * tileCount
        let timed = timer != nil
        Winograd.runRowParts(parts, tileRows: tileRows, maximumWorkers: WinogradStride2.maximumWorkers,
                             timer: &timer) { index, first, rows in
            var sub = self
            sub.firstTileRow = firstTileRow + first
            sub.tileRows = rows
            let before = first * tileColumns
            return sub.runSerially(input: input, output: output, residual: residual,
                                   v: workspace + positions * channels * before,
                                   m: workspace + positions * channels * tileCount + positions * filters * before,
                                   scratch: scratch + index * scratchSize, timed: timed)
        }
    }

    /// The three phases of this pass on the calling thread: V at `v`, M at `m`, one worker's
    /// `scratch`. The same operations on each tile as `run`; only the products' calls are cut
    /// elsewhere, which with OpenBLAS's `Cooperlake` kernel changes no bit (`PackedGEMM`), so
    /// there parts give `run`'s output exactly, elsewhere up to rounding.
    /// Returns the seconds spent in the input and output transforms when `timed`, else zeros.
    func runSerially(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, residual: UnsafePointer<Float>?,
                     v: UnsafeMutablePointer<Float>, m: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>,
                     timed: Bool) -> (input: Double, output: Double) {
        let tileCount = tileRows * tileColumns, positions = variant.positions
        let start = timed ? ProfileClock.now() : 0
        for c in 0..<channels { transformChannel(c, input: input, v: v, tileCount: tileCount, rows: scratch) }
        let inputDone = timed ? ProfileClock.now() : 0
        Winograd.serialProducts(positions: positions, channels: channels, filters: filters, transformed: transformed,
                                orientation: orientation, v: v, m: m, tileCount: tileCount, scratch: scratch)
        let multiplied = timed ? ProfileClock.now() : 0
        for f in 0..<filters {
            transformFilter(f, m: m, tileCount: tileCount, output: output, residual: residual, rows: scratch)
        }
        guard timed else { return (0, 0) }
        return (ProfileClock.seconds(from: start, to: inputDone), ProfileClock.seconds(from: multiplied, to: ProfileClock.now()))
    }
}

extension Winograd.Block {
    /// Whether this block runs in row parts (`Winograd.rowParts`), and how many: pre-transformed
    /// products (filter-major or packed, not tile-major, not streamed) of one image a pass.
    var rowParts: Int {
        guard images == 1, orientation != .tileMajor, !streamed else { return 1 }
        return Winograd.rowParts(positions: variant.positions, filters: filters, channels: channels,
                                 tileRows: geometry.tileRows)
    }

    /// This block cut into `parts` ranges of tile rows, each run by one worker through all three
    /// phases (`runSerially`) with its own share of V and M (part i's tiles are the rows
    /// `tileRows·i/parts ..< tileRows·(i + 1)/parts`; its V and M sit where those tiles' would in
    /// the whole block's workspace) and its own worker scratch. The timer's phases get the
    /// workers' mean seconds in the input and output transforms (`im2col`, `epilogue`) and the
    /// rest (`gemm`).
    func runParts(_ parts: Int, timer: inout PhaseTimer?) {
        let positions = variant.positions, g = geometry
        let tileCount = g.tileRows * g.tileColumns
        let scratch = workspace + positions * (channels + filters) * tileCount
        let scratchSize = Winograd.scratchCount(variant, tileColumns: g.tileColumns, tileRows: g.tileRows,
                                                packedChannels: Winograd.packedChannels(channels))
        let timed = timer != nil
        Winograd.runRowParts(parts, tileRows: g.tileRows, maximumWorkers: Winograd.maximumWorkers, timer: &timer) { index, first, rows in
            var sub = self
            sub.geometry.firstTileRow = g.firstTileRow + first
            sub.geometry.tileRows = rows
            let before = first * g.tileColumns
            return sub.runSerially(v: workspace + positions * channels * before,
                                   m: workspace + positions * channels * tileCount + positions * filters * before,
                                   scratch: scratch + index * scratchSize, timed: timed)
        }
    }

    /// The three phases of this block (one image) on the calling thread: V at `v`, M at `m`, one
    /// worker's `scratch`. The same operations on each tile as `run`; only the products' calls
    /// are cut elsewhere (see `WinogradStride2.Pass.runSerially`). Returns the seconds spent in
    /// the input and output transforms when `timed`, else zeros.
    func runSerially(v: UnsafeMutablePointer<Float>, m: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>,
                     timed: Bool) -> (input: Double, output: Double) {
        let g = geometry, positions = variant.positions
        let tileCount = g.tileRows * g.tileColumns
        let start = timed ? ProfileClock.now() : 0
        for c in 0..<channels {
            Winograd.transformInput(variant, input + c * inputChannelStride, g, into: v + c * tileCount,
                                    positionStride: channels * tileCount, rows: scratch)
        }
        let inputDone = timed ? ProfileClock.now() : 0
        Winograd.serialProducts(positions: positions, channels: channels, filters: filters, transformed: transformed,
                                orientation: orientation, v: v, m: m, tileCount: tileCount, scratch: scratch)
        let multiplied = timed ? ProfileClock.now() : 0
        let group = Winograd.outputGroup(variant, tileCount: tileCount)
        for f in Swift.stride(from: 0, to: filters, by: group) {
            Winograd.transformOutput(variant, m + f * tileCount, g, positionStride: filters * tileCount,
                                     filters: min(group, filters - f), images: 1,
                                     into: output + f * outputChannelStride, outputStride: outputStride,
                                     outPlane: outputChannelStride, biases: biases + f, activation: activation, rows: scratch,
                                     residual: residual.map { $0 + f * outputChannelStride }, pooled: pooled?.advanced(filters: f))
        }
        guard timed else { return (0, 0) }
        return (ProfileClock.seconds(from: start, to: inputDone),
                ProfileClock.seconds(from: multiplied, to: ProfileClock.now()))
    }
}
