/// `WinogradStride2`'s `.f2` variant: each 2×2 output tile of a 3×3 stride-2 convolution from a
/// 5×5 input window (windows 4 pixels apart), 25 products per (filter, channel) instead of 36.
///
/// Along one axis, outputs `y0 = g0·d0 + g1·d1 + g2·d2` and `y1 = g0·d2 + g1·d3 + g2·d4`: the
/// middle tap reads the odd places d1 and d3 (2 products), the outer taps are Winograd F(2, 2)
/// over the even places `s = (d0, d2, d4)` (3 products):
///
///     g0·s0 + g2·s1 = (s0 − s1)·g0 + s1·(g0 + g2)
///     g0·s1 + g2·s2 = s1·(g0 + g2) + (s2 − s1)·g2
///
/// so the five positions are `d1, d3, d0 − d2, d2, d4 − d2` (weights `g1, g1, g0, g0 + g2, g2`)
/// and `y0 = m0 + m2 + m3`, `y1 = m1 + m3 + m4`. Every coefficient is 0 or ±1: the transforms
/// are additions only. Both transforms run eight tiles at a time in `SIMD8<Float>` lanes where
/// the tiles lie inside the image, with the same operations in the same order as the one-tile
/// code at the edges.
extension WinogradStride2 {
    /// The 1-D weight transform of taps `(g0, g1, g2)` for `.f2`: the five values `G g`.
    @inline(__always)
    static func weightRowF2(_ g0: Double, _ g1: Double, _ g2: Double) -> (Double, Double, Double, Double, Double) {
        (g1, g1, g0, g0 + g2, g2)
    }

    /// One 3×3 kernel's 25 `.f2` values, position ξ at `out[ξ·stride]`: `G` down each column of
    /// taps, then along each row of the result (in Double, rounded once to Float).
    @inline(__always)
    static func transformKernelF2(_ g: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>, stride: Int) {
        let c0 = weightRowF2(Double(g[0]), Double(g[3]), Double(g[6]))
        let c1 = weightRowF2(Double(g[1]), Double(g[4]), Double(g[7]))
        let c2 = weightRowF2(Double(g[2]), Double(g[5]), Double(g[8]))
        @inline(__always) func row(_ p: Int, _ a: Double, _ b: Double, _ c: Double) {
            let r = weightRowF2(a, b, c)
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
}

extension WinogradStride2.Pass {
    /// One channel's tiles of this pass for `.f2`: `V[ξ][tile]` at `into + ξ·positionStride + tile`.
    /// Each of a tile row's 5 input rows is transformed along x into `rows` (row r's position q
    /// at `(r·5 + q)·tileColumns + column`), then the 5 rows are combined down each column of
    /// tiles, contiguously along the tile row.
    func transformInputF2(_ plane: UnsafePointer<Float>, into v: UnsafeMutablePointer<Float>, positionStride: Int,
                          rows: UnsafeMutablePointer<Float>) {
        let tc = tileColumns, window = 5
        for tileRow in 0..<tileRows {
            transformWindowRows(plane, tileRow: tileRow, into: rows) { transformRowF2($0, into: $1) }
            let base = v + tileRow * tc
            for q in 0..<window {
                let h = { (r: Int) in UnsafePointer(rows + (r * window + q) * tc) }
                let out = { (p: Int) in base + (p * window + q) * positionStride }
                var j = 0
                while j + 8 <= tc {
                    let d = { (r: Int) in Winograd.load(h(r) + j) }
                    let s1 = d(2)
                    Winograd.store(d(1), out(0) + j)
                    Winograd.store(d(3), out(1) + j)
                    Winograd.store(d(0) - s1, out(2) + j)
                    Winograd.store(s1, out(3) + j)
                    Winograd.store(d(4) - s1, out(4) + j)
                    j += 8
                }
                while j < tc {
                    let d = { (r: Int) in h(r)[j] }
                    let s1 = d(2)
                    out(0)[j] = d(1)
                    out(1)[j] = d(3)
                    out(2)[j] = d(0) - s1
                    out(3)[j] = s1
                    out(4)[j] = d(4) - s1
                    j += 1
                }
            }
        }
    }

    /// One input row along x for `.f2`: for each tile column, the 5 positions of its window
    /// (zeros outside the row), position q at `into + q·tileColumns + column`. Eight tiles at a
    /// time where their windows (33 floats from `4·column − pad`, read as two runs of 32) lie
    /// inside the row: the places 4t, 4t + 1, 4t + 2, 4t + 3 of the tiles are the even and odd
    /// halves of the even and odd halves of 32 floats, 4t + 4 those of the 32 floats 4 further.
    @inline(__always)
    func transformRowF2(_ row: UnsafePointer<Float>, into target: UnsafeMutablePointer<Float>) {
        let tc = tileColumns
        var j = 0
        while j < tc {
            let left = 4 * j - pad
            if left >= 0, j + 8 <= tc, left + 36 <= width {
                let x = UnsafeRawPointer(row + left).loadUnaligned(as: SIMD32<Float>.self)
                let next = UnsafeRawPointer(row + left + 4).loadUnaligned(as: SIMD32<Float>.self)
                let (even, odd) = (x.evenHalf, x.oddHalf)
                let d0 = even.evenHalf, d2 = even.oddHalf, d4 = next.evenHalf.evenHalf
                Winograd.store(odd.evenHalf, target + j)
                Winograd.store(odd.oddHalf, target + tc + j)
                Winograd.store(d0 - d2, target + 2 * tc + j)
                Winograd.store(d2, target + 3 * tc + j)
                Winograd.store(d4 - d2, target + 4 * tc + j)
                j += 8
                continue
            }
            let at = { (s: Int) -> Float in
                let xs = left + s
                return xs >= 0 && xs < width ? row[xs] : 0
            }
            let d2 = at(2)
            target[j] = at(1)
            target[tc + j] = at(3)
            target[2 * tc + j] = at(0) - d2
            target[3 * tc + j] = d2
            target[4 * tc + j] = at(4) - d2
            j += 1
        }
    }

    /// One filter's tiles of this pass for `.f2` (`M[ξ][tile]` at `m + ξ·positionStride + tile`)
    /// into its output plane: down the columns of tiles into `rows` (output row k's position q at
    /// `(k·5 + q)·tileColumns + column`), then along x, 2 output rows a tile row, each finished
    /// with bias, activation and `residual` (`Convolutional.biasActivation`). Along x, eight tiles
    /// whose outputs lie inside the row are finished together and interleaved into 16 outputs.
    func transformOutputF2(_ m: UnsafePointer<Float>, positionStride: Int, into plane: UnsafeMutablePointer<Float>,
                           bias: Float, residual: UnsafePointer<Float>?, rows: UnsafeMutablePointer<Float>) {
        let tc = tileColumns, window = 5
        for tileRow in 0..<tileRows {
            let base = m + tileRow * tc
            for q in 0..<window {
                let at = { (p: Int) in base + (p * window + q) * positionStride }
                let z = { (k: Int) in rows + (k * window + q) * tc }
                var j = 0
                while j + 8 <= tc {
                    let mv = { (p: Int) in Winograd.load(at(p) + j) }
                    let m3 = mv(3)
                    Winograd.store(mv(0) + mv(2) + m3, z(0) + j)
                    Winograd.store(mv(1) + m3 + mv(4), z(1) + j)
                    j += 8
                }
                while j < tc {
                    let mv = { (p: Int) in at(p)[j] }
                    let m3 = mv(3)
                    z(0)[j] = mv(0) + mv(2) + m3
                    z(1)[j] = mv(1) + m3 + mv(4)
                    j += 1
                }
            }
            let firstRow = 2 * (firstTileRow + tileRow)
            for k in 0..<min(2, outHeight - firstRow) {
                let row = rows + k * window * tc
                let y = plane + (firstRow + k) * outWidth
                var j = 0
                while j + 8 <= tc, 2 * j + 16 <= outWidth {
                    let z = { (q: Int) in Winograd.load(row + q * tc + j) }
                    let z3 = z(3)
                    var pair = SIMD16<Float>()
                    pair.evenHalf = z(0) + z(2) + z3
                    pair.oddHalf = z(1) + z3 + z(4)
                    UnsafeMutableRawPointer(y + 2 * j).storeBytes(of: pair, as: SIMD16<Float>.self)
                    j += 8
                }
                while j < tc {
                    let z = { (q: Int) in row[q * tc + j] }
                    let z3 = z(3)
                    let x = 2 * j
                    y[x] = z(0) + z(2) + z3
                    // The last tile column of an odd output width is cut short.
                    if x + 1 < outWidth { y[x + 1] = z(1) + z3 + z(4) }
                    j += 1
                }
                Convolutional.biasActivation(y, count: outWidth, bias: bias, activation: activation,
                                             adding: residual.map { $0 + (firstRow + k) * outWidth })
            }
        }
    }
}
