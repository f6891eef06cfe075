@testable import Darknet
import XCTest

/// `GEMM.multiply` splits columns across workers: the same bits as one single-threaded sgemm
/// (each column is summed over the same k blocks in the same order), and the same values as
/// the definition.
final class GEMMTests: XCTestCase {
    func testSplitEqualsSerialBitForBit() {
        var generator = SplitMix64(state: 9)
        for (m, n, k) in [(64, 1000, 300), (3, 4099, 27), (257, 130, 1153), (5, 7, 3)] {
            let a = (0..<(m * k)).map { _ in generator.uniform(-1, 1) }
            let b = (0..<(k * n)).map { _ in generator.uniform(-1, 1) }
            var serial = [Float](repeating: 0, count: m * n)
            GEMM.serial(m: m, n: n, k: k, a: a, lda: k, b: b, ldb: n, c: &serial, ldc: n)
            for threads in [1, 2, 3] {
                let saved = GEMM.threads
                GEMM.threads = threads
                defer { GEMM.threads = saved }
                var split = [Float](repeating: .nan, count: m * n)
                GEMM.multiply(m: m, n: n, k: k, a: a, lda: k, b: b, ldb: n, c: &split, ldc: n)
                XCTAssertEqual(split, serial, "\(m)×\(n)×\(k) on \(threads) threads")
            }
            for (row, column) in [(0, 0), (m - 1, n - 1), (m / 2, n / 3)] {
                let exact = (0..<k).reduce(0.0) { $0 + Double(a[row * k + $1]) * Double(b[$1 * n + column]) }
                XCTAssertEqual(Double(serial[row * n + column]), exact, accuracy: 1e-4 * Double(k).squareRoot())
            }
        }
    }
}
