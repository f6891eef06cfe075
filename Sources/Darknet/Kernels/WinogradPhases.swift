extension Winograd {
    // Rows split into tile phases (x mod m) and merged back: the data movement around the
    // transforms, so that each transform is a few long vector loops over all tiles.

    /// Splits one input row into its m phases: `phases[q·count + k] = row[k·m − pad + q]`, 0 outside
    /// `0..<width`, for k in `0..<count`. Called with a literal m so that the loops unroll.
    @inline(__always)
    static func splitPhases(_ m: Int, _ row: UnsafePointer<Float>, width: Int, pad: Int, count: Int,
                            into phases: UnsafeMutablePointer<Float>) {
        // Tiles k in lo..<hi read m floats inside the row; the others are checked one by one.
        let lo = min(count, (pad + m - 1) / m)
        let hi = max(lo, min(count, (width + pad) / m))
        func checked(_ k: Int) {
            for q in 0..<m {
                let x = k * m - pad + q
                phases[q * count + k] = x >= 0 && x < width ? row[x] : 0
            }
        }
        for k in 0..<lo { checked(k) }
        let start = row - pad
        var k = lo
        // 8 tiles at a time: m·8 floats split by SIMD even/odd halves (twice for m = 4), 2× the
        // unrolled scalar loop.
        switch m {
        case 4:
            while k + 8 <= hi {
                let v = UnsafeRawPointer(start + k * 4).loadUnaligned(as: SIMD32<Float>.self)
                let even = v.evenHalf, odd = v.oddHalf
                store(even.evenHalf, phases + k)
                store(odd.evenHalf, phases + count + k)
                store(even.oddHalf, phases + 2 * count + k)
                store(odd.oddHalf, phases + 3 * count + k)
                k += 8
            }
        case 2:
            while k + 8 <= hi {
                let v = UnsafeRawPointer(start + k * 2).loadUnaligned(as: SIMD16<Float>.self)
                store(v.evenHalf, phases + k)
                store(v.oddHalf, phases + count + k)
                k += 8
            }
        default:
            break
        }
        while k < hi {
            for q in 0..<m { phases[q * count + k] = start[k * m + q] }
            k += 1
        }
        for k in hi..<count { checked(k) }
    }

    /// The inverse for one output row: `row[x] = phases[(x mod m)·stride + x / m]` for x in
    /// `0..<width`. Called with a literal m so that the loops unroll.
    @inline(__always)
    static func mergePhases(_ m: Int, _ phases: UnsafePointer<Float>, stride: Int, width: Int,
                            into row: UnsafeMutablePointer<Float>) {
        let whole = width / m
        var t = 0
        // 8 tiles at a time: the phases interleaved by setting SIMD even/odd halves (twice for
        // m = 4), the inverse of `splitPhases`' loads.
        switch m {
        case 4:
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
        case 2:
            while t + 8 <= whole {
                var merged = SIMD16<Float>()
                merged.evenHalf = load(phases + t)
                merged.oddHalf = load(phases + stride + t)
                UnsafeMutableRawPointer(row + t * 2).storeBytes(of: merged, as: SIMD16<Float>.self)
                t += 8
            }
        default:
            break
        }
        while t < whole {
            for s in 0..<m { row[t * m + s] = phases[s * stride + t] }
            t += 1
        }
        for x in (whole * m)..<width { row[x] = phases[(x - whole * m) * stride + whole] }
    }
}
