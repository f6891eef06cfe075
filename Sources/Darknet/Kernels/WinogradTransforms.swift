// The transforms around the Winograd products: `V = Bᵀ d B` per input plane, `Y = Aᵀ M A` per
// output plane (both orientations share `outputTransform`), and the vector kernels they run.
// `WinogradPhases.swift` has the data movement that makes those kernels long vector loops.
extension Winograd {
    /// `V = Bᵀ d B` for every tile of one channel plane. Writes position ξ of tile `t` (row-major
    /// over the block's tiles) at `into[ξ·positionStride + t]`.
    ///
    /// Each padded input row is split into its m phases (x mod m) so that the taps of tile `tx`
    /// are contiguous vectors (`phase[j % m][tx + j / m]`). The horizontal transforms are stored
    /// by row phase (r mod m) too, so the rows that feed every tile row `ty` (`m·ty + i`) are
    /// again contiguous over all tiles: the vertical pass is a few long vector loops.
    static func transformInput(_ variant: Variant, _ plane: UnsafePointer<Float>, _ g: Geometry,
                               into v: UnsafeMutablePointer<Float>, positionStride: Int, rows: UnsafeMutablePointer<Float>) {
        let tw = g.tileColumns, m = variant.tile, w = variant.window
        let rowsPerPhase = g.tileRows + 1
        let phases = rows + w * m * rowsPerPhase * tw
        func phase(_ q: Int) -> UnsafePointer<Float> { UnsafePointer(phases + q * (tw + 1)) }
        func tap(_ j: Int) -> UnsafePointer<Float> { phase(j % m) + j / m }
        // h[j][r % m][r / m][tx]
        func h(_ j: Int, _ r: Int) -> UnsafeMutablePointer<Float> { rows + ((j * m + r % m) * rowsPerPhase + r / m) * tw }
        func vp(_ i: Int, _ j: Int) -> UnsafeMutablePointer<Float> { v + (i * w + j) * positionStride }
        for r in 0..<(g.tileRows * m + 2) {
            let y = g.firstTileRow * m + r - g.pad
            if y < 0 || y >= g.height {
                phases.update(repeating: 0, count: m * (tw + 1))
            } else {
                switch variant {
                case .f4: splitPhases(4, plane + y * g.width, width: g.width, pad: g.pad, count: tw + 1, into: phases)
                case .f2: splitPhases(2, plane + y * g.width, width: g.width, pad: g.pad, count: tw + 1, into: phases)
                }
            }
            switch variant {
            case .f4:
                inputTransform6(tw, (tap(0), tap(1), tap(2), tap(3), tap(4), tap(5)),
                                (h(0, r), h(1, r), h(2, r), h(3, r), h(4, r), h(5, r)))
            case .f2:
                inputTransform4(tw, (tap(0), tap(1), tap(2), tap(3)), (h(0, r), h(1, r), h(2, r), h(3, r)))
            }
        }
        let count = g.tileRows * tw
        for j in 0..<w {
            func source(_ i: Int) -> UnsafePointer<Float> { UnsafePointer(h(j, i)) }
            switch variant {
            case .f4:
                inputTransform6(count, (source(0), source(1), source(2), source(3), source(4), source(5)),
                                (vp(0, j), vp(1, j), vp(2, j), vp(3, j), vp(4, j), vp(5, j)))
            case .f2:
                inputTransform4(count, (source(0), source(1), source(2), source(3)), (vp(0, j), vp(1, j), vp(2, j), vp(3, j)))
            }
        }
    }

    /// `Y = Aᵀ M A` + bias + activation for `filters` filters whose rows of M are adjacent, as
    /// filter-major products leave them: filter q's tiles at `mRow + q·images·perImage`, image b's
    /// `b·perImage` further (perImage: the block's tile rows × columns), positions
    /// `positionStride` apart. Filter q of image b goes to the `outHeight × outWidth` plane at
    /// `output + b·outputStride + q·outPlane` (tiles past the edge are cut), with `biases[q]`;
    /// `residual` (laid out as `output`: the fused shortcut's source) is added last.
    ///
    /// Both passes run over all the filters' tiles at once, so each position is one run of
    /// `filters · images · perImage` floats (`outputGroup`); a last pass interleaves the m×m
    /// tiles into rows and applies the epilogue. `rows` holds `(m·window + m²) · filters · images
    /// · perImage` floats, and 2·outWidth more with `pooled`: then each row is finished in that
    /// pair of rows and every second one pools the pair into `pooled` (`Maxpool.poolRows`)
    /// instead of writing `output`.
    static func transformOutput(_ variant: Variant, _ mRow: UnsafePointer<Float>, _ g: Geometry, positionStride: Int,
                                filters: Int = 1, images: Int = 1,
                                into output: UnsafeMutablePointer<Float>, outputStride: Int = 0, outPlane: Int = 0,
                                biases: UnsafePointer<Float>, activation: Activation,
                                rows: UnsafeMutablePointer<Float>, residual: UnsafePointer<Float>? = nil,
                                pooled: PooledOutput? = nil) {
        let tw = g.tileColumns, m = variant.tile, w = variant.window
        let perImage = g.tileRows * tw
        let count = filters * images * perImage
        let y = rows + m * w * count   // y[r][s][t]: the m×m outputs of every tile
        // Pooled, each pair of output rows is finished here and pooled into one row of `pooled`.
        let pair = y + m * m * count
        outputTransform(variant, count: count, mRow, positionStride: positionStride, z: rows, y: y)
        let top = g.firstTileRow * m
        for q in 0..<filters {
            for b in 0..<images {
                let plane = output + b * outputStride + q * outPlane
                let tiles = y + (q * images + b) * perImage
                let added = residual.map { $0 + b * outputStride + q * outPlane }
                let pooledPlane = pooled.map { $0.advanced(images: b, filters: q).base }
                for local in 0..<min(g.outHeight - top, g.tileRows * m) {
                    let ty = local / m, r = local % m
                    let row = pooledPlane == nil ? plane + (top + local) * g.outWidth : pair + (local % 2) * g.outWidth
                    let source = tiles + r * m * count + ty * tw
                    switch variant {
                    case .f4: mergePhases(4, source, stride: count, width: g.outWidth, into: row)
                    case .f2: mergePhases(2, source, stride: count, width: g.outWidth, into: row)
                    }
                    Convolutional.biasActivation(row, count: g.outWidth, bias: biases[q], activation: activation,
                                                 adding: added.map { $0 + (top + local) * g.outWidth })
                    if let pooledPlane, local % 2 == 1 {
                        Maxpool.poolRows(pair, width: g.outWidth, into: pooledPlane + (top + local) / 2 * (g.outWidth / 2))
                    }
                }
            }
        }
    }

    /// `Y = Aᵀ M A` for `count` tiles (or, tile-major, filters) at once, in two passes: the
    /// columns (`z[r][j]`, the m·window runs of `z`), then the rows (`Y[r][s]`, the m² runs of
    /// `y`). Position (i, j) of M is the run at `m + (i·window + j)·positionStride`; every run
    /// holds `count` floats. Both orientations go through here: the same operations on each value.
    @inline(__always)
    static func outputTransform(_ variant: Variant, count: Int, _ m: UnsafePointer<Float>, positionStride: Int,
                                z: UnsafeMutablePointer<Float>, y: UnsafeMutablePointer<Float>) {
        let tile = variant.tile, w = variant.window
        func mp(_ i: Int, _ j: Int) -> UnsafePointer<Float> { m + (i * w + j) * positionStride }
        func zp(_ r: Int, _ j: Int) -> UnsafeMutablePointer<Float> { z + (r * w + j) * count }
        func yp(_ r: Int, _ s: Int) -> UnsafeMutablePointer<Float> { y + (r * tile + s) * count }
        for j in 0..<w {
            switch variant {
            case .f4:
                outputTransform6(count, (mp(0, j), mp(1, j), mp(2, j), mp(3, j), mp(4, j), mp(5, j)),
                                 (zp(0, j), zp(1, j), zp(2, j), zp(3, j)))
            case .f2:
                outputTransform4(count, (mp(0, j), mp(1, j), mp(2, j), mp(3, j)), (zp(0, j), zp(1, j)))
            }
        }
        for r in 0..<tile {
            func source(_ j: Int) -> UnsafePointer<Float> { UnsafePointer(zp(r, j)) }
            switch variant {
            case .f4:
                outputTransform6(count, (source(0), source(1), source(2), source(3), source(4), source(5)),
                                 (yp(r, 0), yp(r, 1), yp(r, 2), yp(r, 3)))
            case .f2:
                outputTransform4(count, (source(0), source(1), source(2), source(3)), (yp(r, 0), yp(r, 1)))
            }
        }
    }

    typealias Four = (UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>)
    typealias FourOut = (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>,
                         UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>)

    /// F(2×2)'s `o = Bᵀ x` for `count` independent 4-vectors, 8 at a time.
    @inline(__always)
    static func inputTransform4(_ count: Int, _ x: Four, _ o: FourOut) {
        var i = 0
        while i + 8 <= count {
            let x0 = load(x.0 + i), x1 = load(x.1 + i), x2 = load(x.2 + i), x3 = load(x.3 + i)
            store(x0 - x2, o.0 + i)
            store(x1 + x2, o.1 + i)
            store(x2 - x1, o.2 + i)
            store(x1 - x3, o.3 + i)
            i += 8
        }
        while i < count {
            let x0 = x.0[i], x1 = x.1[i], x2 = x.2[i], x3 = x.3[i]
            o.0[i] = x0 - x2
            o.1[i] = x1 + x2
            o.2[i] = x2 - x1
            o.3[i] = x1 - x3
            i += 1
        }
    }

    /// F(2×2)'s `o = Aᵀ m` for `count` independent 4-vectors, 8 at a time.
    @inline(__always)
    static func outputTransform4(_ count: Int, _ m: Four, _ o: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>)) {
        var i = 0
        while i + 8 <= count {
            let m1 = load(m.1 + i), m2 = load(m.2 + i)
            store(load(m.0 + i) + m1 + m2, o.0 + i)
            store(m1 - m2 - load(m.3 + i), o.1 + i)
            i += 8
        }
        while i < count {
            o.0[i] = m.0[i] + m.1[i] + m.2[i]
            o.1[i] = m.1[i] - m.2[i] - m.3[i]
            i += 1
        }
    }

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
