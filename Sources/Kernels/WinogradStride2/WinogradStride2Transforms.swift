// The stride-2 transforms (`WinogradStride2`): both run eight tiles at a time in
// `SIMD8<Float>` lanes where the tiles lie inside the image, with the same operations in the
// same order as the one-tile code at the edges, so a tile's values do not depend on where it falls.
extension WinogradStride2.Block {
    /// One channel's tiles of this pass: `V[ξ][tile]` at `v + ξ·positionStride + tile`. Each of
    /// a tile row's 5 input rows is transformed along x into `rows` (row r's position q at
    /// `(r·5 + q)·tileColumns + column`), then the 5 rows are combined down each column of
    /// tiles, contiguously along the tile row.
    ///
    /// Not inlined into the pass (nor `transformOutput`), as `Winograd.transformInput` says why.
    @inline(never)
    func transformInput(_ plane: UnsafePointer<Float>, into v: UnsafeMutablePointer<Float>, positionStride: Int,
                        rows: UnsafeMutablePointer<Float>) {
        let tc = tileColumns, window = WinogradStride2.window
        for tileRow in 0..<tileRows {
            windowRows(plane, tileRow: tileRow, into: rows)
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

    /// The 5 input rows of tile row `tileRow` (from `4·(firstTileRow + tileRow) − pad`), each
    /// transformed along x into `rows` (`transformRow`); rows outside the image are zeros.
    @inline(__always)
    func windowRows(_ plane: UnsafePointer<Float>, tileRow: Int, into rows: UnsafeMutablePointer<Float>) {
        let window = WinogradStride2.window, count = window * tileColumns
        let top = 4 * (firstTileRow + tileRow) - geometry.pad
        for r in 0..<window {
            let y = top + r
            let target = rows + r * count
            guard y >= 0, y < geometry.height else {
                target.update(repeating: 0, count: count)
                continue
            }
            transformRow(plane + y * geometry.width, into: target)
        }
    }

    /// One input row along x: for each tile column, the 5 positions of its window (zeros
    /// outside the row), position q at `target + q·tileColumns + column`. Eight tiles at a time
    /// where their windows (33 floats from `4·column − pad`, read as two runs of 32) lie inside
    /// the row: the places 4t, 4t + 1, 4t + 2, 4t + 3 of the tiles are the even and odd halves
    /// of the even and odd halves of 32 floats, 4t + 4 those of the 32 floats 4 further.
    @inline(__always)
    func transformRow(_ row: UnsafePointer<Float>, into target: UnsafeMutablePointer<Float>) {
        let tc = tileColumns, (pad, width) = (geometry.pad, geometry.width)
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

    /// Filter `f`'s tiles of this pass (`M[ξ][tile]` at `m + ξ·positionStride + tile`) into its
    /// output plane: down the columns of tiles into `rows` (output row k's position q at
    /// `(k·5 + q)·tileColumns + column`), then along x, 2 output rows a tile row, each finished
    /// by the epilogue. Along x, eight tiles whose outputs lie inside the row are finished
    /// together and interleaved into 16 outputs.
    @inline(never)
    func transformOutput(_ m: UnsafePointer<Float>, positionStride: Int, filter f: Int, rows: UnsafeMutablePointer<Float>) {
        let tc = tileColumns, window = WinogradStride2.window
        let (outHeight, outWidth) = (geometry.outHeight, geometry.outWidth)
        let plane = output.plane(channel: f)
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
                epilogue.finish(y, count: outWidth, filter: f, offset: output.base.distance(to: y))
            }
        }
    }
}

/// The stride-2 matrices written out, and each transform of one tile computed from them in
/// Double: the references the vector transforms above are tested against.
package enum WinogradStride2Reference {
    /// `Bᵀ` (5×5): the positions `d1, d3, d0 − d2, d2, d4 − d2` of a 5-wide window.
    package static let bt: [[Double]] = [
        [0, 1, 0, 0, 0],
        [0, 0, 0, 1, 0],
        [1, 0, -1, 0, 0],
        [0, 0, 1, 0, 0],
        [0, 0, -1, 0, 1],
    ]
    /// `G` (5×3): `g1, g1, g0, g0 + g2, g2`.
    package static let g: [[Double]] = [
        [0, 1, 0],
        [0, 1, 0],
        [1, 0, 0],
        [1, 0, 1],
        [0, 0, 1],
    ]
    /// `Aᵀ` (2×5): `y0 = m0 + m2 + m3`, `y1 = m1 + m3 + m4`.
    package static let at: [[Double]] = [
        [1, 0, 1, 1, 0],
        [0, 1, 0, 1, 1],
    ]

    static func product(_ a: [[Double]], _ b: [[Double]]) -> [[Double]] {
        a.map { row in (0..<b[0].count).map { j in zip(row, b).reduce(0) { $0 + $1.0 * $1.1[j] } } }
    }

    static func transposed(_ a: [[Double]]) -> [[Double]] { (0..<a[0].count).map { j in a.map { $0[j] } } }

    /// `G g Gᵀ`, row-major 5×5, from a row-major 3×3 kernel.
    package static func weights(_ kernel: [Float]) -> [Double] {
        let k = (0..<3).map { r in (0..<3).map { Double(kernel[r * 3 + $0]) } }
        return product(product(g, k), transposed(g)).flatMap { $0 }
    }

    /// `Bᵀ d B`, row-major 5×5, from a row-major 5×5 window.
    package static func input(_ window: [Float]) -> [Double] {
        let d = (0..<5).map { r in (0..<5).map { Double(window[r * 5 + $0]) } }
        return product(product(bt, d), transposed(bt)).flatMap { $0 }
    }

    /// `Aᵀ M A`, row-major 2×2, from a row-major 5×5 tile of products.
    package static func output(_ m: [Float]) -> [Double] {
        let tile = (0..<5).map { r in (0..<5).map { Double(m[r * 5 + $0]) } }
        return product(product(at, tile), transposed(at)).flatMap { $0 }
    }
}
