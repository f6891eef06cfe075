// Rows split into tile phases (x mod 4) and merged back: the data movement around the
// transforms, so that each transform is a few long vector loops over all tiles.
extension Winograd {
    /// Splits one input row into its 4 phases: `phases[q·count + k] = row[4k − pad + q]`, 0
    /// outside `0..<width`, for k in `0..<count`.
    @inline(__always)
    static func splitPhases(_ row: UnsafePointer<Float>, width: Int, pad: Int, count: Int,
                            into phases: UnsafeMutablePointer<Float>) {
        // Tiles k in lo..<hi read 4 floats inside the row; the others are checked one by one.
        let lo = min(count, (pad + 3) / 4)
        let hi = max(lo, min(count, (width + pad) / 4))
        func checked(_ k: Int) {
            for q in 0..<4 {
                let x = k * 4 - pad + q
                phases[q * count + k] = x >= 0 && x < width ? row[x] : 0
            }
        }
        for k in 0..<lo { checked(k) }
        let start = row - pad
        var k = lo
        // 8 tiles at a time: 32 floats split by SIMD even/odd halves twice.
        while k + 8 <= hi {
            let v = UnsafeRawPointer(start + k * 4).loadUnaligned(as: SIMD32<Float>.self)
            let even = v.evenHalf, odd = v.oddHalf
            store(even.evenHalf, phases + k)
            store(odd.evenHalf, phases + count + k)
            store(even.oddHalf, phases + 2 * count + k)
            store(odd.oddHalf, phases + 3 * count + k)
            k += 8
        }
        while k < hi {
            for q in 0..<4 { phases[q * count + k] = start[k * 4 + q] }
            k += 1
        }
        for k in hi..<count { checked(k) }
    }

    /// The inverse for one output row: `row[x] = phases[(x mod 4)·stride + x / 4]` for x in `0..<width`.
    @inline(__always)
    static func mergePhases(_ phases: UnsafePointer<Float>, stride: Int, width: Int, into row: UnsafeMutablePointer<Float>) {
        let whole = width / 4
        var t = 0
        // 8 tiles at a time: the phases interleaved by setting SIMD even/odd halves twice, the
        // inverse of `splitPhases`' loads.
        while t + 8 <= whole {
            var even = SIMD16<Float>(), odd = SIMD16<Float>(), merged = SIMD32<Float>()
            even.evenHalf = load(phases + t)
            odd.evenHalf = load(phases + stride + t)
            even.oddHalf = load(phases + 2 * stride + t)
            odd.oddHalf = load(phases + 3 * stride + t)
            merged.evenHalf = even
            merged.oddHalf = odd
            UnsafeMutableRawPointer(row + t * 4).storeBytes(of: merged, as: SIMD32<Float>.self)
            t += 8
        }
        while t < whole {
            for s in 0..<4 { row[t * 4 + s] = phases[s * stride + t] }
            t += 1
        }
        for x in (whole * 4)..<width { row[x] = phases[(x - whole * 4) * stride + whole] }
    }
}
