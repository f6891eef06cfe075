/// AlexeyAB's logistic, `1.f/(1.f + expf(-x))` in Float (his `activations.h`; pjreddie's is
/// `Logistic`, in double), with `expf` computed as glibc's: the same bits as `reference`, four
/// elements at a time.
///
/// glibc's `expf` (2.28 on, `sysdeps/ieee754/flt-32/e_expf.c`) works in double: `z = x·32/ln 2`,
/// `k = round(z)` by adding 1.5·2⁵², `r = z − k`, `2^(k/32)` from a table of `2^(j/32)`, and a
/// cubic in `r`. On CPUs with FMA (x86-64 since 2013, arm64) glibc runs a build of it where the
/// compiler fused `k` and `r` into multiply-adds, `r = fma(x, 32/ln 2, −k)`; that `r` changes
/// the result for 2 of the 2.24·10⁹ Floats below 88.7 in magnitude (−63.09946 and 32.564632),
/// its fused cubic for none (both checked against every Float). `reference` is
/// that fused build; this machine's `expf` gave its bits for every Float in range.
///
/// The vector path is glibc's unfused build (baseline x86-64 has no FMA instruction). Its
/// `expf` differs from the fused one for those two Floats only, and there the logistics agree
/// (1 + e absorbs the difference): over every Float below 87 in magnitude the two logistics
/// have the same bits (checked once over all of them). A block with an input beyond ±87 or NaN (where
/// `expf(−x)` overflows, underflows or leaves the table's range) is computed by `reference`.
/// `AlexeyABLogisticTests` checks every 61st Float and those two against it.
package enum AlexeyABLogistic {
    /// `output[i] = logistic(input[i])` for `i < count`; `output` may be `input`. Split across
    /// up to `threads` workers (`Parallel`) when the count is large enough; each element's bits
    /// are the same whatever the split.
    package static func apply(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, count: Int,
                              threads: Int) {
        Parallel.forChunks(of: count, work: count * 2, threads: threads) { range in
            serial(input + range.lowerBound, output + range.lowerBound, count: range.count)
        }
    }

    /// `apply` on the calling thread (`Logistic.inBlocks`' loop).
    package static func serial(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, count: Int) {
        Logistic.inBlocks(input, output, count: count, block: block, table: table, fast: fastBlock, reference: reference)
    }

    /// The reference: `1.f/(1.f + expf(-x))` with `expf` glibc's fused build (`expf`).
    @inline(__always)
    package static func reference(_ x: Float) -> Float { 1 / (1 + expf(-x)) }

    /// glibc's `expf` as its FMA build computes it, special cases included: +∞ above
    /// 0x1.62e42ep6 (≈ 88.72), +0 below −0x1.9fe368p6 (≈ −103.97) and at −∞, NaN for NaN.
    package static func expf(_ x: Float) -> Float {
        if x.isNaN { return x + x }
        if x > 0x1.62e42ep6 { return .infinity }
        if x < -0x1.9fe368p6 { return 0 }
        let xd = Double(x)
        let kd = shift.addingProduct(invLn2, xd)       // fma(invLn2, x, shift)
        let ki = kd.bitPattern
        let k = kd - shift
        let r = (-k).addingProduct(invLn2, xd)         // fma(invLn2, x, −k)
        return Float(cubic(r) * Double(bitPattern: table[Int(ki & 31)] &+ (ki &<< 47)))
    }

    /// Elements checked together: a block with a lane outside the vector path's range is
    /// computed again by the reference, so the checks cost one branch a block.
    static let block = 64

    /// Inputs beyond this magnitude (and NaN) take the reference: near where `expf(−x)`
    /// overflows or underflows.
    static let limit: Float = 87

    /// Writes the block's logistics to `output` (not `input`) and returns true when every input
    /// is within `limit` (else what it wrote may be wrong).
    @inline(__always)
    static func fastBlock(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>,
                          _ table: UnsafePointer<UInt64>) -> Bool {
        // `limit − |x|` on the bit patterns goes negative for |x| > limit, infinities and NaN;
        // or-ed over the block, the sign bits tell whether any lane did.
        let limitBits = SIMD4<Int32>(repeating: Int32(bitPattern: limit.bitPattern))
        var outOfRange = SIMD4<Int32>(repeating: 0)
        for q in Swift.stride(from: 0, to: block, by: 4) {
            let x = UnsafeRawPointer(input + q).loadUnaligned(as: SIMD4<Float>.self)
            outOfRange |= limitBits &- (unsafeBitCast(x, to: SIMD4<Int32>.self) & 0x7fff_ffff)
            let z = SIMD4<Double>(-x) * invLn2
            let shifted = z + shift
            let r = z - (shifted - shift)
            let ki = unsafeBitCast(shifted, to: SIMD4<UInt64>.self)
            let j = ki & 31
            let t = SIMD4<UInt64>(table[Int(j[0])], table[Int(j[1])], table[Int(j[2])], table[Int(j[3])]) &+ (ki &<< 47)
            let e = SIMD4<Float>(cubic(r) * unsafeBitCast(t, to: SIMD4<Double>.self))
            UnsafeMutableRawPointer(output + q).storeBytes(of: 1 / (1 + e), as: SIMD4<Float>.self)
        }
        return outOfRange.min() >= 0
    }

    /// glibc's cubic `(c0·r + c1)·r² + (c2·r + 1)` ≈ 2^(r/32), unfused, four lanes.
    @inline(__always)
    static func cubic(_ r: SIMD4<Double>) -> SIMD4<Double> {
        let z = r * c0 + c1
        let y = r * c2 + 1
        return z * (r * r) + y
    }

    /// The same cubic on one double.
    @inline(__always)
    static func cubic(_ r: Double) -> Double {
        let z = r * c0 + c1
        let y = r * c2 + 1
        return z * (r * r) + y
    }

    /// glibc's coefficients (`__exp2f_data.poly_scaled`).
    static let c0 = 0x1.c6af84b912394p-5 / 32 / 32 / 32, c1 = 0x1.ebfce50fac4f3p-3 / 32 / 32
    static let c2 = 0x1.62e42ff0c52d6p-1 / 32

    /// 32/ln 2 (glibc's `0x1.71547652b82fep+0 · 32`).
    static let invLn2 = 0x1.71547652b82fep+0 * 32
    /// 1.5·2⁵²: adding it rounds a double below 2⁵¹ in magnitude to an integer, kept in the low bits.
    static let shift = 0x1.8p52

    /// glibc's table: the bits of `2^(j/32)` less `j << 47`, so that adding `ki << 47` restores
    /// `j` and adds `(k − j)/32` to the exponent.
    static let table: [UInt64] = powers.enumerated().map { j, bits in bits &- (UInt64(j) << 47) }

    /// The bits of `2^(j/32)` rounded to the nearest double, `j < 32` (from a 60-digit decimal
    /// evaluation; written out so the bits depend on no platform's `exp2`). An entry off by an
    /// ulp would change few results, as they are rounded to Float after: the tests compare the
    /// entries with glibc's `exp2`.
    static let powers: [UInt64] = [
        0x3ff0_0000_0000_0000, 0x3ff0_59b0_d315_8574, 0x3ff0_b558_6cf9_890f, 0x3ff1_1301_d012_5b51,
        0x3ff1_72b8_3c7d_517b, 0x3ff1_d487_3168_b9aa, 0x3ff2_387a_6e75_6238, 0x3ff2_9e9d_f51f_dee1,
        0x3ff3_06fe_0a31_b715, 0x3ff3_71a7_373a_a9cb, 0x3ff3_dea6_4c12_3422, 0x3ff4_4e08_6061_892d,
        0x3ff4_bfda_d536_2a27, 0x3ff5_342b_569d_4f82, 0x3ff5_ab07_dd48_5429, 0x3ff6_247e_b03a_5585,
        0x3ff6_a09e_667f_3bcd, 0x3ff7_1f75_e8ec_5f74, 0x3ff7_a114_73eb_0187, 0x3ff8_2589_994c_ce13,
        0x3ff8_ace5_422a_a0db, 0x3ff9_3737_b0cd_c5e5, 0x3ff9_c491_82a3_f090, 0x3ffa_5503_b23e_255d,
        0x3ffa_e89f_995a_d3ad, 0x3ffb_7f76_f2fb_5e47, 0x3ffc_199b_dd85_529c, 0x3ffc_b720_dcef_9069,
        0x3ffd_5818_dcfb_a487, 0x3ffd_fc97_337b_9b5f, 0x3ffe_a4af_a2a4_90da, 0x3fff_5076_5b6e_4540,
    ]
}
