/// Deterministic synthetic weights for any cfg, byte-identical to the oracle tool's
/// (`tools/oracle/darknet-oracle.c synth-weights`), so big models can be tested against
/// darknet without their real weights (spec v1, Tests/DarknetTests/Fixtures/README.md):
///
/// - SplitMix64 seeded with `seed`; `uniform(lo, hi) = lo + (hi − lo) · u` in float32 with
///   `u = Float(next() >> 40) / 2²⁴`.
/// - Header major 0, minor 2, revision 0, seen 0 (uint64).
/// - Per convolution, in file order: biases U(−0.1, 0.1); if batch_normalize, scales
///   U(0.8, 1.2) (× 0.25 when the next layer is a `[shortcut]`, so residual sums stay
///   bounded), rolling mean U(−0.1, 0.1), rolling variance U(0.8, 1.2); weights U(−a, a)
///   with `a = sqrt(6 / fanIn)` (He-uniform: activations keep their scale through leaky ReLUs).
/// - Per `[connected]` (file order): biases U(−0.1, 0.1), weights U(−a, a) with
///   `a = sqrt(6 / inputs)`, then if batch_normalize scales U(0.8, 1.2), rolling mean
///   U(−0.1, 0.1), rolling variance U(0.8, 1.2). Per `[batchnorm]`: scales, rolling mean,
///   rolling variance as for a convolution. Per `[local]`: biases U(−0.1, 0.1) (one per
///   output element), weights U(−a, a) with `a = sqrt(6 / (size²·C))`. Per weighted
///   `[shortcut]` (AlexeyAB only, so not in the libdarknet tool): its weights U(−0.25, 1.25).
public enum SyntheticWeights {
    public static let specVersion = 1

    public static func bytes(for model: ModelDescription, seed: UInt64) -> [UInt8] {
        var generator = SplitMix64(state: seed)
        var out: [UInt8] = []
        out.reserveCapacity(20 + WeightsReader.parameterBytes(for: model))
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
        }
        func appendUniform(_ count: Int, _ lo: Float, _ hi: Float, times factor: Float = 1) {
            for _ in 0..<count {
                var value = generator.uniform(lo, hi)
                if factor != 1 { value *= factor }
                append(value.bitPattern)
            }
        }
        append(Int32(0)); append(Int32(2)); append(Int32(0)); append(UInt64(0))
        // Each layer's parts in file order, each drawn from its range (`WeightsPart.synthetic`).
        for layer in model.layers {
            for part in WeightsReader.parts(of: layer, in: model) ?? [] {
                appendUniform(part.count, part.synthetic.low, part.synthetic.high, times: part.scale)
            }
        }
        return out
    }

    /// FNV-1a 64 of a byte sequence (the checksum the goldens record).
    public static func fnv1a64(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// The synthetic input the goldens use: `x[c][y][x] = ((c·7919 + y·613 + x·31) mod 1000) / 999`.
    public static func input(_ shape: TensorShape) -> [Float] {
        var values = [Float](repeating: 0, count: shape.count)
        var i = 0
        for c in 0..<shape.channels {
            for y in 0..<shape.height {
                for x in 0..<shape.width {
                    values[i] = Float((c * 7919 + y * 613 + x * 31) % 1000) / 999
                    i += 1
                }
            }
        }
        return values
    }
}

struct SplitMix64 {
    var state: UInt64

    mutating func next() -> UInt64 {
        state = state &+ 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func uniform(_ lo: Float, _ hi: Float) -> Float {
        let u = Float(next() >> 40) * (1.0 / 16_777_216.0)
        return lo + (hi - lo) * u
    }
}
