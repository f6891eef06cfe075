#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// darknet's logistic, `1./(1. + exp(-x))` with `exp` in double, rounded to Float: the same bits
/// as `Activation.value(.logistic)` (the reference), four elements at a time.
///
/// `exp(−x)` is computed as `2^m · 2^(j/32) · p(r)`: `−x·32/ln 2` rounded to `k = 32m + j`,
/// `r = −x − k·ln 2/32` (`|r| ≤ ln 2/64`, exact to rounding with ln 2/32 split in two), a table
/// of the 32 powers `2^(j/32)` from libm's `exp2`, and `p` the Taylor polynomial of degree 5
/// (truncation below 2⁻⁴⁸). Its relative error stays below 2⁻⁴⁷, libm's `exp` is within an ulp,
/// so the two quotients `1/(1 + e)` differ by less than 2⁻⁴⁶ relative. Each lane's quotient `y`
/// is then checked (Ziv's rounding test): when `y·(1 − 2⁻⁴⁰)` and `y·(1 + 2⁻⁴⁰)` round to the
/// same Float, libm's quotient, which lies between them, rounds to it too. A block with a lane
/// that fails the test (about one element in 37,000 does) or an input beyond ±80 or NaN (where
/// the result is 0, 1 or subnormal) is computed by the reference. So the bits never depend on
/// the polynomial: all 2³² Floats gave the reference's bits (a standalone run of this code),
/// and `LogisticTests` checks every 61st. It takes half the time of the scalar
/// formula (docs/bench-log.md).
package enum Logistic {
    /// `output[i] = logistic(input[i])` for `i < count`; `output` may be `input`. Split across
    /// up to `threads` workers (`Parallel`) when the count is large enough; each element's bits
    /// are the same whatever the split.
    package static func apply(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, count: Int,
                              threads: Int) {
        Parallel.forChunks(of: count, work: count * 4, threads: threads) { range in
            serial(input + range.lowerBound, output + range.lowerBound, count: range.count)
        }
    }

    /// `apply` on the calling thread.
    package static func serial(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, count: Int) {
        inBlocks(input, output, count: count, block: block, table: powers, fast: fastBlock, reference: reference)
    }

    /// The loop of both logistics' `serial`: `fast` computes a block of `block` elements into
    /// scratch and returns whether they are right, else `reference` computes that block; the
    /// tail shorter than a block takes `reference` too. `output` may be `input`: a block goes
    /// to scratch first, so one that fails the checks still has its inputs for the reference.
    @inline(__always)
    static func inBlocks<Entry>(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, count: Int,
                                block: Int, table: [Entry],
                                fast: (UnsafePointer<Float>, UnsafeMutablePointer<Float>, UnsafePointer<Entry>) -> Bool,
                                reference: (Float) -> Float) {
        withUnsafeTemporaryAllocation(of: Float.self, capacity: block) { scratch in
            table.withUnsafeBufferPointer { table in
                var i = 0
                while i + block <= count {
                    if fast(input + i, scratch.baseAddress!, table.baseAddress!) {
                        (output + i).update(from: scratch.baseAddress!, count: block)
                    } else {
                        for j in i..<i + block { output[j] = reference(input[j]) }
                    }
                    i += block
                }
                for j in i..<count { output[j] = reference(input[j]) }
            }
        }
    }

    /// The reference: `Activation.value(.logistic)`'s formula.
    @inline(__always)
    package static func reference(_ x: Float) -> Float { Float(1.0 / (1.0 + exp(-Double(x)))) }

    /// Elements checked together: a block with any input beyond `limit` or any lane failing the
    /// rounding test is computed again by the reference, so the checks cost one branch a block.
    static let block = 64

    /// Inputs beyond this magnitude (and NaN) take the reference: the results there are 0, 1
    /// or subnormal, where the rounding test below does not hold.
    static let limit: Float = 80

    /// Writes the block's logistics to `output` (not `input`) and returns true when every input
    /// is within `limit` and every lane passes the rounding test (else what it wrote is wrong).
    @inline(__always)
    static func fastBlock(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>,
                          _ table: UnsafePointer<Double>) -> Bool {
        // `limit − |x|` on the bit patterns goes negative for |x| > limit, infinities and NaN;
        // or-ed over the block, the sign bits tell whether any lane did.
        let limitBits = SIMD4<Int32>(repeating: Int32(bitPattern: limit.bitPattern))
        var outOfRange = SIMD4<Int32>(repeating: 0), differ = SIMD4<Int32>(repeating: 0)
        for q in Swift.stride(from: 0, to: block, by: 4) {
            let x = UnsafeRawPointer(input + q).loadUnaligned(as: SIMD4<Float>.self)
            outOfRange |= limitBits &- (unsafeBitCast(x, to: SIMD4<Int32>.self) & 0x7fff_ffff)
            let y = quotient(SIMD4<Double>(x), table)
            let margin = 0x1p-40
            let below = SIMD4<Float>(y - y * margin), above = SIMD4<Float>(y + y * margin)
            differ |= unsafeBitCast(below, to: SIMD4<Int32>.self) ^ unsafeBitCast(above, to: SIMD4<Int32>.self)
            UnsafeMutableRawPointer(output + q).storeBytes(of: below, as: SIMD4<Float>.self)
        }
        return outOfRange.min() >= 0 && differ == SIMD4(repeating: 0)
    }

    /// `2^(j/32)` for `j < 32`, from libm's `exp2` (within an ulp).
    static let powers: [Double] = (0..<32).map { exp2(Double($0) / 32) }

    /// `1 / (1 + exp(−x))` in double for `|x| ≤ limit`.
    @inline(__always)
    static func quotient(_ x: SIMD4<Double>, _ table: UnsafePointer<Double>) -> SIMD4<Double> {
        let minusX = -x
        // k = round(−x·32 / ln 2) by the 1.5·2⁵² shift; its low bits are k in two's complement.
        let shift = SIMD4<Double>(repeating: 0x1.8p52)
        let shifted = minusX * (32 / M_LN2) + shift
        let k = shifted - shift
        // ln 2 / 32 split so that k·hi is exact for |k| < 2¹² (hi has 33 significant bits).
        let ln2Hi = 0x1.62e42feep-6, ln2Lo = 0x1.a39ef35793c76p-38
        let r = (minusX - k * ln2Hi) - k * ln2Lo
        // exp(r) for |r| ≤ ln 2 / 64: Σ rᵏ/k! for k ≤ 5, truncation below 2⁻⁴⁸.
        let r2 = r * r
        let low: SIMD4<Double> = 0.5 + r * (1.0 / 6), high: SIMD4<Double> = 1.0 / 24 + r * (1.0 / 120)
        let p: SIMD4<Double> = (1 + r) + r2 * (low + r2 * high)
        // exp(−x) = 2^(k / 32) = 2^m · 2^(j/32) with k = 32m + j.
        let k64 = unsafeBitCast(shifted, to: SIMD4<Int64>.self) &- unsafeBitCast(shift, to: SIMD4<Int64>.self)
        let j = k64 & 31
        let t = SIMD4<Double>(table[Int(j[0])], table[Int(j[1])], table[Int(j[2])], table[Int(j[3])])
        let scale = unsafeBitCast(((k64 &>> 5) &+ 1023) &<< 52, to: SIMD4<Double>.self)
        return 1 / (1 + p * (t * scale))
    }
}
