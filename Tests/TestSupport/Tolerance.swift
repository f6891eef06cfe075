import XCTest

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

    /// `actual` has `expected`'s bits when `exact`, else each element is within 1e-5 × (the
    /// largest |expected| + 1) of it: rounding, far below an indexing mistake's error. For two
    /// routes that cut one product differently, exact where OpenBLAS's kernel ignores the cut
    /// (`BLASCore.ignoresTheCut`).
    public static func checkBits(_ actual: [Float], _ expected: [Float], exact: Bool, _ message: @autoclosure () -> String,
                                 file: StaticString = #filePath, line: UInt = #line) {
        if exact {
            XCTAssertEqual(actual.map(\.bitPattern), expected.map(\.bitPattern), message(), file: file, line: line)
            return
        }
        XCTAssertEqual(actual.count, expected.count, message(), file: file, line: line)
        let scale = (expected.map(abs).max() ?? 0) + 1
        let worst = zip(actual, expected).map { abs($0 - $1) }.max() ?? 0
        XCTAssertLessThanOrEqual(worst, 1e-5 * scale, "\(message()) (within rounding: the kernel does not ignore the cut)",
                                 file: file, line: line)
    }
}
