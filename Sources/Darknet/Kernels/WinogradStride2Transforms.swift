/// `WinogradStride2`'s `.f4` input and output transforms, four tiles at a time in `SIMD4<Float>`
/// lanes where the tiles lie inside the image (the same operations, in the same order, as the
/// one-tile code at the edges, so a tile's values do not depend on where it falls).
extension WinogradStride2.Pass {
    /// One channel's tiles of this pass: `V[ξ][tile]` at `into + ξ·positionStride + tile`.
    /// Each of a tile row's 9 input rows is transformed along x into `rows` (row r's
    /// position q at `(r·9 + q)·tileColumns + column`), then the 9 rows are combined down
    /// each column of tiles, contiguously along the tile row.
    func transformInput(_ plane: UnsafePointer<Float>, into v: UnsafeMutablePointer<Float>, positionStride: Int,
                        rows: UnsafeMutablePointer<Float>) {
        let tc = tileColumns, window = 9
        for tileRow in 0..<tileRows {
            transformWindowRows(plane, tileRow: tileRow, into: rows) { transformRow($0, into: $1) }
            let base = v + tileRow * tc
            for q in 0..<window {
                let h = { (r: Int) in UnsafePointer(rows + (r * window + q) * tc) }
                let out = { (p: Int) in base + (p * window + q) * positionStride }
                var j = 0
                while j + 4 <= tc {
                    let d = { (r: Int) in load4(h(r) + j) }
                    let (s0, s1, s2, s3, s4) = (d(0), d(2), d(4), d(6), d(8))
                    store4(d(1), out(0) + j)
                    store4(d(3), out(1) + j)
                    store4(d(5), out(2) + j)
                    store4(d(7), out(3) + j)
                    store4(2 * s0 - s1 - 2 * s2 + s3, out(4) + j)
                    store4(2 * s1 + s2 - s3, out(5) + j)
                    store4(-2 * s1 + 3 * s2 - s3, out(6) + j)
                    store4(s3 - s1, out(7) + j)
                    store4(2 * s1 - s2 - 2 * s3 + s4, out(8) + j)
                    j += 4
                }
                while j < tc {
                    let d = { (r: Int) in h(r)[j] }
                    let (s0, s1, s2, s3, s4) = (d(0), d(2), d(4), d(6), d(8))
                    out(0)[j] = d(1)
                    out(1)[j] = d(3)
                    out(2)[j] = d(5)
                    out(3)[j] = d(7)
                    out(4)[j] = 2 * s0 - s1 - 2 * s2 + s3
                    out(5)[j] = 2 * s1 + s2 - s3
                    out(6)[j] = -2 * s1 + 3 * s2 - s3
                    out(7)[j] = s3 - s1
                    out(8)[j] = 2 * s1 - s2 - 2 * s3 + s4
                    j += 1
                }
            }
        }
    }

    /// One input row along x: for each tile column, the 9 positions of its window (zeros
    /// outside the row), position q at `into + q·tileColumns + column`. Four tiles at a time where
    /// their windows (33 floats from `8·column − pad`) lie inside the row: the even and odd
    /// places of each window, transposed so that each lane is a tile.
    @inline(__always)
    func transformRow(_ row: UnsafePointer<Float>, into target: UnsafeMutablePointer<Float>) {
        let tc = tileColumns
        var j = 0
        while j < tc {
            let left = 8 * j - pad
            if left >= 0, j + 4 <= tc, left + 32 < width {
                let x = row + left
                let (a, b, c, d) = (load8(x), load8(x + 8), load8(x + 16), load8(x + 24))
                let (ao, bo, co, dOdd) = (a.oddHalf, b.oddHalf, c.oddHalf, d.oddHalf)
                let (ae, be, ce, de) = (a.evenHalf, b.evenHalf, c.evenHalf, d.evenHalf)
                store4(SIMD4(ao[0], bo[0], co[0], dOdd[0]), target + j)
                store4(SIMD4(ao[1], bo[1], co[1], dOdd[1]), target + tc + j)
                store4(SIMD4(ao[2], bo[2], co[2], dOdd[2]), target + 2 * tc + j)
                store4(SIMD4(ao[3], bo[3], co[3], dOdd[3]), target + 3 * tc + j)
                let s0 = SIMD4(ae[0], be[0], ce[0], de[0])
                let s1 = SIMD4(ae[1], be[1], ce[1], de[1])
                let s2 = SIMD4(ae[2], be[2], ce[2], de[2])
                let s3 = SIMD4(ae[3], be[3], ce[3], de[3])
                let s4 = SIMD4(be[0], ce[0], de[0], x[32])
                store4(2 * s0 - s1 - 2 * s2 + s3, target + 4 * tc + j)
                store4(2 * s1 + s2 - s3, target + 5 * tc + j)
                store4(-2 * s1 + 3 * s2 - s3, target + 6 * tc + j)
                store4(s3 - s1, target + 7 * tc + j)
                store4(2 * s1 - s2 - 2 * s3 + s4, target + 8 * tc + j)
                j += 4
                continue
            }
            let at = { (s: Int) -> Float in
                let xs = left + s
                return xs >= 0 && xs < width ? row[xs] : 0
            }
            target[j] = at(1)
            target[tc + j] = at(3)
            target[2 * tc + j] = at(5)
            target[3 * tc + j] = at(7)
            let (s0, s1, s2, s3, s4) = (at(0), at(2), at(4), at(6), at(8))
            target[4 * tc + j] = 2 * s0 - s1 - 2 * s2 + s3
            target[5 * tc + j] = 2 * s1 + s2 - s3
            target[6 * tc + j] = -2 * s1 + 3 * s2 - s3
            target[7 * tc + j] = s3 - s1
            target[8 * tc + j] = 2 * s1 - s2 - 2 * s3 + s4
            j += 1
        }
    }

    /// One filter's tiles of this pass (`M[ξ][tile]` at `m + ξ·positionStride + tile`) into its
    /// output plane: down the columns of tiles into `rows` (output row k's position q at
    /// `(k·9 + q)·tileColumns + column`), then along x, 4 output rows a tile row, each finished
    /// with bias, activation and `residual` (`Convolutional.biasActivation`). Along x, four
    /// tiles whose outputs lie inside the row are finished together and transposed into 16
    /// consecutive outputs.
    func transformOutput(_ m: UnsafePointer<Float>, positionStride: Int, into plane: UnsafeMutablePointer<Float>,
                         bias: Float, residual: UnsafePointer<Float>?, rows: UnsafeMutablePointer<Float>) {
        let tc = tileColumns, window = 9
        for tileRow in 0..<tileRows {
            let base = m + tileRow * tc
            for q in 0..<window {
                let at = { (p: Int) in base + (p * window + q) * positionStride }
                let z = { (k: Int) in rows + (k * window + q) * tc }
                var j = 0
                while j + 4 <= tc {
                    let mv = { (p: Int) in load4(at(p) + j) }
                    let (a5, a6, a7) = (mv(5), mv(6), mv(7))
                    store4(mv(0) + mv(4) + a5 + a6 + a7, z(0) + j)
                    store4(mv(1) + a5 - a6 + 2 * a7, z(1) + j)
                    store4(mv(2) + a5 + a6 + 4 * a7, z(2) + j)
                    store4(mv(3) + a5 - a6 + 8 * a7 + mv(8), z(3) + j)
                    j += 4
                }
                while j < tc {
                    let mv = { (p: Int) in at(p)[j] }
                    let (a5, a6, a7) = (mv(5), mv(6), mv(7))
                    z(0)[j] = mv(0) + mv(4) + a5 + a6 + a7
                    z(1)[j] = mv(1) + a5 - a6 + 2 * a7
                    z(2)[j] = mv(2) + a5 + a6 + 4 * a7
                    z(3)[j] = mv(3) + a5 - a6 + 8 * a7 + mv(8)
                    j += 1
                }
            }
            let firstRow = 4 * (firstTileRow + tileRow)
            for k in 0..<min(4, outHeight - firstRow) {
                let row = rows + k * window * tc
                let y = plane + (firstRow + k) * outWidth
                var j = 0
                while j + 4 <= tc, 4 * j + 16 <= outWidth {
                    let z = { (q: Int) in load4(row + q * tc + j) }
                    let (a5, a6, a7) = (z(5), z(6), z(7))
                    let y0 = z(0) + z(4) + a5 + a6 + a7, y1 = z(1) + a5 - a6 + 2 * a7
                    let y2 = z(2) + a5 + a6 + 4 * a7, y3 = z(3) + a5 - a6 + 8 * a7 + z(8)
                    store4(SIMD4(y0[0], y1[0], y2[0], y3[0]), y + 4 * j)
                    store4(SIMD4(y0[1], y1[1], y2[1], y3[1]), y + 4 * j + 4)
                    store4(SIMD4(y0[2], y1[2], y2[2], y3[2]), y + 4 * j + 8)
                    store4(SIMD4(y0[3], y1[3], y2[3], y3[3]), y + 4 * j + 12)
                    j += 4
                }
                while j < tc {
                    let z = { (q: Int) in row[q * tc + j] }
                    let (a5, a6, a7) = (z(5), z(6), z(7))
                    let values = (z(0) + z(4) + a5 + a6 + a7, z(1) + a5 - a6 + 2 * a7, z(2) + a5 + a6 + 4 * a7,
                                  z(3) + a5 - a6 + 8 * a7 + z(8))
                    let x = 4 * j
                    y[x] = values.0
                    // The last tile column of an output width that is not a multiple of 4 is cut short.
                    if x + 1 < outWidth { y[x + 1] = values.1 }
                    if x + 2 < outWidth { y[x + 2] = values.2 }
                    if x + 3 < outWidth { y[x + 3] = values.3 }
                    j += 1
                }
                Convolutional.biasActivation(y, count: outWidth, bias: bias, activation: activation,
                                             adding: residual.map { $0 + (firstRow + k) * outWidth })
            }
        }
    }
}

@inline(__always)
private func load4(_ p: UnsafePointer<Float>) -> SIMD4<Float> {
    UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
}

@inline(__always)
private func load8(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
    UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
}

@inline(__always)
private func store4(_ value: SIMD4<Float>, _ p: UnsafeMutablePointer<Float>) {
    UnsafeMutableRawPointer(p).storeBytes(of: value, as: SIMD4<Float>.self)
}
