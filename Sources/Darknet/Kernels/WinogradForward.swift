extension Winograd {
    /// One 3×3 stride-1 convolution of `batch` images through F(4×4, 3×3).
    ///
    /// Image `b` is read at `input + b·inputStride` (`channels × height × width`) and written at
    /// `output + b·outputStride` (`filters × outHeight × outWidth`, `outHeight = height + 2·pad − 2`);
    /// the tiles of all images share the 36 GEMMs. `transformed` is `transformWeights`' layout;
    /// `workspace` holds `workspaceCount(…)` floats. The timer's `im2col` phase gets the input
    /// transform, `gemm` the products and `epilogue` the output transform with bias and activation.
    static func forward(input: UnsafePointer<Float>, channels: Int, height: Int, width: Int, pad: Int,
                        output: UnsafeMutablePointer<Float>, filters: Int, outHeight: Int, outWidth: Int,
                        transformed: UnsafePointer<Float>, biases: UnsafePointer<Float>, activation: Activation,
                        workspace: UnsafeMutablePointer<Float>, batch: Int = 1, inputStride: Int = 0, outputStride: Int = 0,
                        timer: inout PhaseTimer?) {
        let grid = tiles(outHeight: outHeight, outWidth: outWidth)
        let pass = blocking(channels: channels, filters: filters, tileRows: grid.rows, tileColumns: grid.columns, batch: batch)
        var block = Block(input: input, channels: channels, output: output, filters: filters, transformed: transformed,
                          biases: biases, activation: activation, workspace: workspace, images: pass.images,
                          inputStride: inputStride, outputStride: outputStride,
                          geometry: Geometry(height: height, width: width, pad: pad, outHeight: outHeight, outWidth: outWidth,
                                             firstTileRow: 0, tileRows: pass.tileRows, tileColumns: grid.columns))
        for image in Swift.stride(from: 0, to: batch, by: pass.images) {
            block.input = input + image * inputStride
            block.output = output + image * outputStride
            for first in Swift.stride(from: 0, to: grid.rows, by: pass.tileRows) {
                block.geometry.firstTileRow = first
                block.geometry.tileRows = min(pass.tileRows, grid.rows - first)
                block.run(timer: &timer)
            }
        }
    }

    /// Floats of `V` and `M` processed at a time (8 MB): large images are transformed and
    /// multiplied in blocks of tile rows, so the workspace stays small (yolov3's 208×208 layer
    /// would otherwise need 37 MB). The whole batch goes through one pass when it fits.
    nonisolated(unsafe) static var blockFloats = 1 << 21

    /// Images and tile rows per pass.
    static func blocking(channels: Int, filters: Int, tileRows: Int, tileColumns: Int, batch: Int) -> (images: Int, tileRows: Int) {
        let perTileRow = positions * (channels + filters) * tileColumns
        if perTileRow * tileRows * batch <= blockFloats { return (batch, tileRows) }
        return (1, max(1, min(tileRows, blockFloats / perTileRow)))
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
        var input: UnsafePointer<Float>
        var channels: Int
        var output: UnsafeMutablePointer<Float>
        var filters: Int
        var transformed: UnsafePointer<Float>
        var biases: UnsafePointer<Float>
        var activation: Activation
        var workspace: UnsafeMutablePointer<Float>
        var images: Int
        var inputStride: Int
        var outputStride: Int
        var geometry: Geometry

        func run(timer: inout PhaseTimer?) {
            let g = geometry
            let perImage = g.tileRows * g.tileColumns
            let tileCount = perImage * images
            let v = workspace
            let m = workspace + positions * channels * tileCount
            let scratch = m + positions * filters * tileCount
            let scratchSize = scratchCount(tileColumns: g.tileColumns, tileRows: g.tileRows)
            let (channels, filters, images) = (self.channels, self.filters, self.images)
            let (input, output, inputStride, outputStride) = (self.input, self.output, self.inputStride, self.outputStride)
            let plane = g.height * g.width, outPlane = g.outHeight * g.outWidth

            Parallel.forWorkers(of: images * channels, work: images * channels * perImage * 64,
                                maximumWorkers: maximumWorkers) { worker, range in
                let rows = scratch + worker * scratchSize
                for item in range {
                    let b = item / channels, c = item % channels
                    transformInput(input + b * inputStride + c * plane, g,
                                   into: v + c * tileCount + b * perImage, positionStride: channels * tileCount, rows: rows)
                }
            }
            timer?.lap(\.im2col)

            // The 36 independent products, split across workers (each a single-threaded sgemm).
            let transformed = self.transformed
            Parallel.forChunks(of: positions, work: filters * channels * tileCount) { range in
                for position in range {
                    GEMM.serial(m: filters, n: tileCount, k: channels,
                                a: transformed + position * filters * channels, lda: channels,
                                b: v + position * channels * tileCount, ldb: tileCount,
                                c: m + position * filters * tileCount, ldc: tileCount)
                }
            }
            timer?.lap(\.gemm)

            let (biases, activation) = (self.biases, self.activation)
            Parallel.forWorkers(of: images * filters, work: images * filters * perImage * 64,
                                maximumWorkers: maximumWorkers) { worker, range in
                let rows = scratch + worker * scratchSize
                for item in range {
                    let b = item / filters, f = item % filters
                    transformOutput(m + f * tileCount + b * perImage, g, positionStride: filters * tileCount,
                                    into: output + b * outputStride + f * outPlane,
                                    bias: biases[f], activation: activation, rows: rows)
                }
            }
            timer?.lap(\.epilogue)
        }
    }

    /// `V = Bᵀ d B` for every tile of one channel plane. Writes position ξ of tile `t` (row-major
    /// over the image's tiles) at `into[ξ·positionStride + t]`.
    ///
    /// Each padded input row is split into its 4 phases (x mod 4) so that the 6 taps of tile
    /// `tx` are contiguous vectors (`phase[j % 4][tx + j / 4]`). The horizontal transforms are
    /// stored by row phase (r mod 4) too, so the 6 rows that feed every tile row `ty`
    /// (`4·ty + i`) are again contiguous over all tiles: the vertical pass is 6 long vector loops.
    static func transformInput(_ plane: UnsafePointer<Float>, _ g: Geometry, into v: UnsafeMutablePointer<Float>,
                               positionStride: Int, rows: UnsafeMutablePointer<Float>) {
        let tw = g.tileColumns
        let rowsPerPhase = g.tileRows + 1
        let phases = rows + window * 4 * rowsPerPhase * tw
        let p0 = phases, p1 = phases + (tw + 1), p2 = phases + 2 * (tw + 1), p3 = phases + 3 * (tw + 1)
        // h[j][r % 4][r / 4][tx]
        func h(_ j: Int, _ r: Int) -> UnsafeMutablePointer<Float> { rows + ((j * 4 + r % 4) * rowsPerPhase + r / 4) * tw }
        for r in 0..<(g.tileRows * tile + 2) {
            let y = g.firstTileRow * tile + r - g.pad
            if y < 0 || y >= g.height {
                phases.update(repeating: 0, count: 4 * (tw + 1))
            } else {
                let source = plane + y * g.width
                for k in 0...tw {
                    let x = k * tile - g.pad
                    if x >= 0 && x + 3 < g.width {
                        p0[k] = source[x]; p1[k] = source[x + 1]; p2[k] = source[x + 2]; p3[k] = source[x + 3]
                    } else {
                        p0[k] = x >= 0 && x < g.width ? source[x] : 0
                        p1[k] = x + 1 >= 0 && x + 1 < g.width ? source[x + 1] : 0
                        p2[k] = x + 2 >= 0 && x + 2 < g.width ? source[x + 2] : 0
                        p3[k] = x + 3 >= 0 && x + 3 < g.width ? source[x + 3] : 0
                    }
                }
            }
            inputTransform(tw, (UnsafePointer(p0), UnsafePointer(p1), UnsafePointer(p2), UnsafePointer(p3),
                                UnsafePointer(p0 + 1), UnsafePointer(p1 + 1)), (h(0, r), h(1, r), h(2, r), h(3, r), h(4, r), h(5, r)))
        }
        let count = g.tileRows * tw
        for j in 0..<window {
            inputTransform(count, (UnsafePointer(h(j, 0)), UnsafePointer(h(j, 1)), UnsafePointer(h(j, 2)),
                                   UnsafePointer(h(j, 3)), UnsafePointer(h(j, 4)), UnsafePointer(h(j, 5))),
                           (v + j * positionStride, v + (6 + j) * positionStride, v + (12 + j) * positionStride,
                            v + (18 + j) * positionStride, v + (24 + j) * positionStride, v + (30 + j) * positionStride))
        }
    }

    /// `Y = Aᵀ M A` for every tile of one filter (in the block's tile rows), plus bias and
    /// activation, written into the `outHeight × outWidth` plane (tiles past the edge are cut). Both passes run over all
    /// tiles at once; a last pass interleaves the 4×4 tiles into rows and applies the epilogue.
    static func transformOutput(_ m: UnsafePointer<Float>, _ g: Geometry, positionStride: Int,
                                into plane: UnsafeMutablePointer<Float>, bias: Float, activation: Activation,
                                rows: UnsafeMutablePointer<Float>) {
        let tw = g.tileColumns
        let count = g.tileRows * tw
        let z = rows                   // z[r][j][t]: columns combined
        let y = rows + 24 * count      // y[r][s][t]: the 4×4 outputs of every tile
        for j in 0..<window {
            outputTransform(count, (m + j * positionStride, m + (6 + j) * positionStride, m + (12 + j) * positionStride,
                                    m + (18 + j) * positionStride, m + (24 + j) * positionStride, m + (30 + j) * positionStride),
                            (z + j * count, z + (6 + j) * count, z + (12 + j) * count, z + (18 + j) * count))
        }
        for r in 0..<tile {
            let zr = z + r * window * count
            outputTransform(count, (UnsafePointer(zr), UnsafePointer(zr + count), UnsafePointer(zr + 2 * count),
                                    UnsafePointer(zr + 3 * count), UnsafePointer(zr + 4 * count), UnsafePointer(zr + 5 * count)),
                            (y + r * 4 * count, y + (r * 4 + 1) * count, y + (r * 4 + 2) * count, y + (r * 4 + 3) * count))
        }
        let top = g.firstTileRow * tile
        for local in 0..<min(g.outHeight - top, g.tileRows * tile) {
            let ty = local / tile, r = local % tile
            let row = plane + (top + local) * g.outWidth
            let source = y + r * 4 * count + ty * tw
            for ox in 0..<g.outWidth {
                row[ox] = source[(ox % tile) * count + ox / tile]
            }
            Convolutional.biasActivation(row, count: g.outWidth, bias: bias, activation: activation)
        }
    }

    typealias Six = (UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>,
                     UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>)

    /// `o = Bᵀ x` for `count` independent 6-vectors (`x.k[i]` is element k of vector i), 8 at a
    /// time with explicit SIMD (the many pointers defeat the auto-vectoriser's alias checks).
    @inline(__always)
    static func inputTransform(_ count: Int, _ x: Six,
                               _ o: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>,
                                     UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>)) {
        var i = 0
        while i + 8 <= count {
            let x0 = load(x.0 + i), x1 = load(x.1 + i), x2 = load(x.2 + i)
            let x3 = load(x.3 + i), x4 = load(x.4 + i), x5 = load(x.5 + i)
            store(4 * x0 - 5 * x2 + x4, o.0 + i)
            store(-4 * x1 - 4 * x2 + x3 + x4, o.1 + i)
            store(4 * x1 - 4 * x2 - x3 + x4, o.2 + i)
            store(-2 * x1 - x2 + 2 * x3 + x4, o.3 + i)
            store(2 * x1 - x2 - 2 * x3 + x4, o.4 + i)
            store(4 * x1 - 5 * x3 + x5, o.5 + i)
            i += 8
        }
        while i < count {
            let x0 = x.0[i], x1 = x.1[i], x2 = x.2[i], x3 = x.3[i], x4 = x.4[i], x5 = x.5[i]
            o.0[i] = 4 * x0 - 5 * x2 + x4
            o.1[i] = -4 * x1 - 4 * x2 + x3 + x4
            o.2[i] = 4 * x1 - 4 * x2 - x3 + x4
            o.3[i] = -2 * x1 - x2 + 2 * x3 + x4
            o.4[i] = 2 * x1 - x2 - 2 * x3 + x4
            o.5[i] = 4 * x1 - 5 * x3 + x5
            i += 1
        }
    }

    /// `o = Aᵀ m` for `count` independent 6-vectors, 8 at a time.
    @inline(__always)
    static func outputTransform(_ count: Int, _ m: Six,
                                _ o: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>,
                                      UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>)) {
        var i = 0
        while i + 8 <= count {
            let m1 = load(m.1 + i), m2 = load(m.2 + i), m3 = load(m.3 + i), m4 = load(m.4 + i)
            let a = m1 + m2, b = m1 - m2, c = m3 + m4, d = m3 - m4
            store(load(m.0 + i) + a + c, o.0 + i)
            store(b + 2 * d, o.1 + i)
            store(a + 4 * c, o.2 + i)
            store(b + 8 * d + load(m.5 + i), o.3 + i)
            i += 8
        }
        while i < count {
            let a = m.1[i] + m.2[i], b = m.1[i] - m.2[i], c = m.3[i] + m.4[i], d = m.3[i] - m.4[i]
            o.0[i] = m.0[i] + a + c
            o.1[i] = b + 2 * d
            o.2[i] = a + 4 * c
            o.3[i] = b + 8 * d + m.5[i]
            i += 1
        }
    }

    @inline(__always)
    static func load(_ p: UnsafePointer<Float>) -> SIMD8<Float> { UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self) }

    @inline(__always)
    static func store(_ v: SIMD8<Float>, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD8<Float>.self)
    }
}
