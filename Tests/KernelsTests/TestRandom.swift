/// Deterministic test data (SplitMix64, the generator of the engine's synthetic weights).
struct SplitMix64 {
    var state: UInt64

    mutating func next() -> UInt64 {
        state = state &+ 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `lo + (hi − lo) · u` with `u` in [0, 1) on a 2⁻²⁴ grid.
    mutating func uniform(_ lo: Float, _ hi: Float) -> Float {
        let u = Float(next() >> 40) * (1.0 / 16_777_216.0)
        return lo + (hi - lo) * u
    }
}
