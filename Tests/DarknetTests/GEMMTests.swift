@testable import Darknet
import XCTest

/// `GEMM.multiply` splits columns (or, for thin products, rows) across workers: the same bits
/// as one single-threaded sgemm (each element is summed over the same k blocks in the same
/// order), and the same values as the definition.
final class GEMMTests: XCTestCase {
    func testSplitEqualsSerialBitForBit() {
        var generator = SplitMix64(state: 9)
        for (m, n, k) in [(64, 1000, 300), (3, 4099, 27), (257, 130, 1153), (1024, 169, 600), (5, 7, 3)] {
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

    /// The epilogue each worker runs on its part sees every element of C exactly once, after
    /// the product: bias + leaky through it equals the product then the two-pass reference, bit
    /// for bit, on the serial path, the split by rows and the split by columns (with a ragged
    /// last part), on 1, 2 and 3 workers; the reported time is 0 unless asked for.
    func testEpilogueRunsOnceOnEveryElementAfterTheProduct() {
        var generator = SplitMix64(state: 13)
        for (m, n, k) in [(5, 7, 3), (257, 130, 1153), (64, 1000, 300), (40, 4099, 27)] {
            let a = (0..<(m * k)).map { _ in generator.uniform(-1, 1) }
            let b = (0..<(k * n)).map { _ in generator.uniform(-1, 1) }
            let biases = (0..<m).map { _ in generator.uniform(-1, 1) }
            var reference = [Float](repeating: 0, count: m * n)
            GEMM.serial(m: m, n: n, k: k, a: a, lda: k, b: b, ldb: n, c: &reference, ldc: n)
            Convolutional.epilogueReference(&reference, filters: m, spatial: n, biases: biases, activation: .leaky)
            for threads in [1, 2, 3] {
                let saved = GEMM.threads
                GEMM.threads = threads
                defer { GEMM.threads = saved }
                var fused = [Float](repeating: .nan, count: m * n)
                var visits = [Int](repeating: 0, count: m * n)
                let seconds = fused.withUnsafeMutableBufferPointer { c in
                    visits.withUnsafeMutableBufferPointer { visits in
                        nonisolated(unsafe) let (base, visits) = (c.baseAddress!, visits)
                        return GEMM.multiply(m: m, n: n, k: k, a: a, lda: k, b: b, ldb: n, c: base, ldc: n,
                                             epilogue: { row, start, count in
                            for i in 0..<count { visits[start - base + i] += 1 }
                            Convolutional.biasActivation(start, count: count, bias: biases[row], activation: .leaky)
                        })
                    }
                }
                XCTAssertEqual(seconds, 0, "not asked to time")
                var timed = [Float](repeating: 0, count: m * n)
                let measured = GEMM.multiply(m: m, n: n, k: k, a: a, lda: k, b: b, ldb: n, c: &timed, ldc: n, timeEpilogue: true,
                                             epilogue: { _, start, count in
                    for i in 0..<count { start[i] = -start[i] }
                })
                XCTAssertGreaterThan(measured, 0, "asked to time")
                XCTAssertEqual(visits, [Int](repeating: 1, count: m * n), "\(m)×\(n)×\(k) on \(threads) threads")
                XCTAssertEqual(fused.map(\.bitPattern), reference.map(\.bitPattern), "\(m)×\(n)×\(k) on \(threads) threads")
            }
        }
    }
}
