/// Comparisons the tests' tolerances are written in.
public enum Tolerance {
    /// `|a − b| / (1 + |b|)`.
    public static func relative(_ a: Float, _ b: Float) -> Float { abs(a - b) / (1 + abs(b)) }

    /// Representable floats between `a` and `b` (same sign assumed; 0 when equal).
    public static func ulps(_ a: Float, _ b: Float) -> UInt32 {
        let x = a.bitPattern, y = b.bitPattern
        return x > y ? x - y : y - x
    }

    /// Representable doubles between `a` and `b` (same sign assumed; 0 when equal).
    public static func ulps(_ a: Double, _ b: Double) -> UInt64 {
        let x = a.bitPattern, y = b.bitPattern
        return x > y ? x - y : y - x
    }
}
