/// SplitMix64: a seeded generator, so "random" test data is the same on every machine and run
/// (the generator of the engine's synthetic weights, `SyntheticWeights`).
public struct SplitMix64: RandomNumberGenerator {
    public var state: UInt64

    public init(state: UInt64) { self.state = state }
    public init(seed: UInt64) { self.state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `lo + (hi − lo) · u` with `u` in [0, 1) on a 2⁻²⁴ grid.
    public mutating func uniform(_ lo: Float, _ hi: Float) -> Float {
        lo + (hi - lo) * nextUnit()
    }

    /// Uniform in [0, 1) on a 2⁻²⁴ grid.
    public mutating func nextUnit() -> Float { Float(next() >> 40) * (1.0 / 16_777_216.0) }
}
