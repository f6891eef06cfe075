// The transforms around the Winograd products: `V = Bᵀ d B` per input plane, `Y = Aᵀ M A` per
// output plane, and the vector kernels they run. `WinogradPhases.swift` has the data movement
// that makes those kernels long vector loops; `WinogradReference.swift` the matrices they are
// checked against.
extension Winograd {
    /// The part of a layer one pass covers: the layer's sizes and padding, and a block of tile rows.
    package struct PassGeometry {
        package var height, width, pad, outHeight, outWidth: Int
        package var firstTileRow, tileRows, tileColumns: Int

        /// Tiles of one image in the pass.
        var tileCount: Int { tileRows * tileColumns }
    }

    /// `V = Bᵀ d B` for every tile of the pass in one channel plane. Writes position ξ of tile
    /// `t` (row-major over the pass's tiles) at `into[ξ·positionStride + t]`. `rows`: scratch of
    /// `scratchCount(_:)` floats.
    ///
    /// Each padded input row is split into its 4 phases (x mod 4) so that the taps of tile `tx`
    /// are contiguous vectors (`phase[j % 4][tx + j / 4]`). The horizontal transforms are stored
    /// by row phase (r mod 4) too, so the rows that feed every tile row `ty` (`4·ty + i`) are
    /// again contiguous over all tiles: the vertical pass is a few long vector loops.
    ///
    /// Not inlined (nor `transformOutput`): each call transforms a whole plane, so the call
    /// costs nothing, while inlined into a pass the transforms made it too large for the
    /// optimizer to inline the SIMD loads and stores into it too, and every vector became a
    /// call to the standard library's `loadUnaligned` (10% more time on yolov3-tiny).
    @inline(never)
    static func transformInput(_ plane: UnsafePointer<Float>, _ g: PassGeometry,
                               into v: UnsafeMutablePointer<Float>, positionStride: Int, rows: UnsafeMutablePointer<Float>) {
        let tw = g.tileColumns
        let rowsPerPhase = g.tileRows + 1
        let phases = rows + window * tile * rowsPerPhase * tw
        func phase(_ q: Int) -> UnsafePointer<Float> { UnsafePointer(phases + q * (tw + 1)) }
        func tap(_ j: Int) -> UnsafePointer<Float> { phase(j % 4) + j / 4 }
        // h[j][r % 4][r / 4][tx]
        func h(_ j: Int, _ r: Int) -> UnsafeMutablePointer<Float> { rows + ((j * 4 + r % 4) * rowsPerPhase + r / 4) * tw }
        func vp(_ i: Int, _ j: Int) -> UnsafeMutablePointer<Float> { v + (i * window + j) * positionStride }
        for r in 0..<(g.tileRows * 4 + 2) {
            let y = g.firstTileRow * 4 + r - g.pad
            if y < 0 || y >= g.height {
                phases.update(repeating: 0, count: 4 * (tw + 1))
            } else {
                splitPhases(plane + y * g.width, width: g.width, pad: g.pad, count: tw + 1, into: phases)
            }
            inputTransform6(tw, (tap(0), tap(1), tap(2), tap(3), tap(4), tap(5)),
                            (h(0, r), h(1, r), h(2, r), h(3, r), h(4, r), h(5, r)))
        }
        let count = g.tileCount
        for j in 0..<window {
            func source(_ i: Int) -> UnsafePointer<Float> { UnsafePointer(h(j, i)) }
            inputTransform6(count, (source(0), source(1), source(2), source(3), source(4), source(5)),
                            (vp(0, j), vp(1, j), vp(2, j), vp(3, j), vp(4, j), vp(5, j)))
        }
    }

    /// `Y = Aᵀ M A` + the epilogue for one filter of `images` images: the filter's tiles of
    /// image b at `m + b·tileCount`, positions `positionStride` apart. Image b's output goes to
    /// `output.plane(image: b, channel: filter)` (tiles past the edge are cut), finished by
    /// `epilogue` row by row. With `pooled` (a 2×2 stride-2 pool of the output follows), each
    /// pair of rows is merged in scratch and pooled into `pooled` as it is finished
    /// (`Epilogue.finishPooled`) instead of writing `output`. `rows`: scratch of `scratchCount(_:images:)` floats.
    ///
    /// Both passes run over all the images' tiles at once, so each position is one run of
    /// `images · tileCount` floats; a last pass interleaves the 4×4 tiles into rows.
    @inline(never)
    static func transformOutput(_ m: UnsafePointer<Float>, _ g: PassGeometry, positionStride: Int, images: Int,
                                filter: Int, output: MutableTensorView, epilogue: Epilogue, pooled: MutableTensorView?,
                                rows: UnsafeMutablePointer<Float>) {
        let tw = g.tileColumns, perImage = g.tileCount
        let count = images * perImage
        let y = rows + tile * window * count   // y[r][s][t]: the 4×4 outputs of every tile
        let pair = y + tile * tile * count       // pooled: the pair of rows being finished
        outputTransform(count: count, m, positionStride: positionStride, z: rows, y: y)
        let top = g.firstTileRow * tile
        for b in 0..<images {
            let plane = output.plane(image: b, channel: filter)
            let pooledPlane = pooled.map { $0.plane(image: b, channel: filter) }
            for local in 0..<min(g.outHeight - top, g.tileRows * tile) {
                let ty = local / tile, r = local % tile
                let outputRow = plane + (top + local) * g.outWidth
                let row = pooledPlane == nil ? outputRow : pair + (local % 2) * g.outWidth
                mergePhases(y + r * tile * count + b * perImage + ty * tw, stride: count, width: g.outWidth, into: row)
                if let pooledPlane {
                    guard local % 2 == 1 else { continue }
                    epilogue.finishPooled(pair, width: g.outWidth, filter: filter,
                                          into: pooledPlane + (top + local) / 2 * (g.outWidth / 2))
                } else {
                    epilogue.finish(row, count: g.outWidth, filter: filter, offset: output.base.distance(to: outputRow))
                }
            }
        }
    }

    /// `Y = Aᵀ M A` for `count` tiles at once, in two passes: the columns (`z[r][j]`, the 4·6
    /// runs of `z`), then the rows (`Y[r][s]`, the 16 runs of `y`). Position (i, j) of M is the
    /// run at `m + (i·6 + j)·positionStride`; every run holds `count` floats.
    @inline(__always)
    static func outputTransform(count: Int, _ m: UnsafePointer<Float>, positionStride: Int,
                                z: UnsafeMutablePointer<Float>, y: UnsafeMutablePointer<Float>) {
        func mp(_ i: Int, _ j: Int) -> UnsafePointer<Float> { m + (i * window + j) * positionStride }
        func zp(_ r: Int, _ j: Int) -> UnsafeMutablePointer<Float> { z + (r * window + j) * count }
        func yp(_ r: Int, _ s: Int) -> UnsafeMutablePointer<Float> { y + (r * tile + s) * count }
        for j in 0..<window {
            outputTransform6(count, (mp(0, j), mp(1, j), mp(2, j), mp(3, j), mp(4, j), mp(5, j)),
                             (zp(0, j), zp(1, j), zp(2, j), zp(3, j)))
        }
        for r in 0..<tile {
            func source(_ j: Int) -> UnsafePointer<Float> { UnsafePointer(zp(r, j)) }
            outputTransform6(count, (source(0), source(1), source(2), source(3), source(4), source(5)),
                             (yp(r, 0), yp(r, 1), yp(r, 2), yp(r, 3)))
        }
    }

    typealias FourOut = (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>,
                         UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>)

    typealias Six = (UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>,
                     UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>)

    /// F(4×4)'s `o = Bᵀ x` for `count` independent 6-vectors (`x.k[i]` is element k of vector i), 8 at a
    /// time with explicit SIMD (the many pointers defeat the auto-vectoriser's alias checks):
    /// `4x0 − 5x2 + x4`, `−4x1 − 4x2 + x3 + x4`, `4x1 − 4x2 − x3 + x4`, `−2x1 − x2 + 2x3 + x4`,
    /// `2x1 − x2 − 2x3 + x4`, `4x1 − 5x3 + x5`, with the shared terms `a = x4 − 4x2`,
    /// `b = x3 − 4x1`, `c = x4 − x2`, `d = 2(x3 − x1)` taken once (the rows are `4x0 − x2 + a`,
    /// `a ± b`, `c ± d`, `x5 − 4x3 − b`): 17 operations a vector instead of 28.
    @inline(__always)
    static func inputTransform6(_ count: Int, _ x: Six,
                                _ o: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>,
                                UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>)) {
        var i = 0
        while i + 8 <= count {
            let x0 = load(x.0 + i), x1 = load(x.1 + i), x2 = load(x.2 + i)
            let x3 = load(x.3 + i), x4 = load(x.4 + i), x5 = load(x.5 + i)
            let a = x4 - 4 * x2, b = x3 - 4 * x1, c = x4 - x2, d = 2 * (x3 - x1)
            store(4 * x0 - x2 + a, o.0 + i)
            store(a + b, o.1 + i)
            store(a - b, o.2 + i)
            store(c + d, o.3 + i)
            store(c - d, o.4 + i)
            store(x5 - 4 * x3 - b, o.5 + i)
            i += 8
        }
        while i < count {
            let x0 = x.0[i], x1 = x.1[i], x2 = x.2[i], x3 = x.3[i], x4 = x.4[i], x5 = x.5[i]
            let a = x4 - 4 * x2, b = x3 - 4 * x1, c = x4 - x2, d = 2 * (x3 - x1)
            o.0[i] = 4 * x0 - x2 + a
            o.1[i] = a + b
            o.2[i] = a - b
            o.3[i] = c + d
            o.4[i] = c - d
            o.5[i] = x5 - 4 * x3 - b
            i += 1
        }
    }

    /// F(4×4)'s `o = Aᵀ m` for `count` independent 6-vectors, 8 at a time.
    @inline(__always)
    static func outputTransform6(_ count: Int, _ m: Six, _ o: FourOut) {
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
