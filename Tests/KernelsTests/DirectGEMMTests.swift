@testable import Kernels
import Foundation
import TestSupport
import XCTest

/// `PackedGEMM.multiplyDirect` and `GEMM.multiplyDirect` (OpenBLAS's small-matrix kernel, β = 0)
/// against a product summed in Double, on odd shapes: column counts around its 16-column blocks
/// and the tails of at most 8 it would sum another way, depths on both sides of 32, rows and
/// columns cut as the callers cut them.
final class DirectGEMMTests: XCTestCase {
    private func direct() throws -> PackedGEMM.DirectFunction {
        let kernel = try PackedKernelSupport.kernel()
        guard let direct = kernel.direct else { throw Skip.because("OpenBLAS's \(GEMM.coreName) kernel has no direct routine") }
        return direct
    }

    func testRunsDirectExcludesOnlyShortTailsOfDeepProducts() {
        XCTAssertTrue(PackedGEMM.runsDirect(columns: 9, k: 512))
        XCTAssertTrue(PackedGEMM.runsDirect(columns: 1, k: 31))
        XCTAssertFalse(PackedGEMM.runsDirect(columns: 8, k: 32))
        XCTAssertFalse(PackedGEMM.runsDirect(columns: 1, k: 1000))
    }

    /// Every element is the naive product's to rounding, C's other floats are untouched (ldc
    /// wider than the piece), and each element's bits are the same whether its rows and columns
    /// were one call or pieces: one FMA chain per element, the last short tail recomputed.
    func testMatchesNaiveProductAndIgnoresTheCut() throws {
        let direct = try direct()
        var generator = SplitMix64(state: 41)
        for (m, n, k) in [(1, 9, 40), (3, 16, 27), (4, 17, 64), (5, 24, 32), (16, 33, 31), (37, 130, 100), (70, 169, 513), (2, 72, 1100)] {
            let w = (0..<(m * k)).map { _ in generator.uniform(-1, 1) }
            let x = (0..<(k * n)).map { _ in generator.uniform(-1, 1) }
            let ldc = n + 3
            var whole = [Float](repeating: .nan, count: m * ldc)
            PackedGEMM.multiplyDirect(direct, weights: w, ldw: k, rows: 0..<m, b: x, ldb: n, columns: 0..<n, k: k,
                                      c: &whole, ldc: ldc)
            for i in 0..<m {
                for j in 0..<n {
                    var sum = 0.0, magnitude = 0.0
                    for l in 0..<k {
                        sum += Double(w[i * k + l]) * Double(x[l * n + j])
                        magnitude += abs(Double(w[i * k + l]) * Double(x[l * n + j]))
                    }
                    XCTAssertEqual(Double(whole[i * ldc + j]), sum, accuracy: 1e-6 * (magnitude + 1), "\(m)×\(n)×\(k) at (\(i), \(j))")
                }
                for j in n..<ldc { XCTAssertTrue(whole[i * ldc + j].isNaN, "\(m)×\(n)×\(k): wrote past column \(n) in row \(i)") }
            }
            // Rows in two pieces, columns cut at a multiple of 16 with at least 9 on each side.
            var pieces = [Float](repeating: .nan, count: m * ldc)
            let rowCuts = m > 1 ? [0..<m / 2, m / 2..<m] : [0..<m]
            let columnCuts = n >= 25 ? [0..<16, 16..<n] : [0..<n]
            for rows in rowCuts {
                for columns in columnCuts where PackedGEMM.runsDirect(columns: columns.count, k: k) {
                    PackedGEMM.multiplyDirect(direct, weights: w, ldw: k, rows: rows, b: x, ldb: n, columns: columns, k: k,
                                              c: &pieces, ldc: ldc)
                }
            }
            XCTAssertEqual(pieces.map(\.bitPattern), whole.map(\.bitPattern), "\(m)×\(n)×\(k): pieces against one call")
            // The last 16 columns as one block of their own (no tail): the same bits as in the
            // whole call, whose short tail would otherwise have been summed as dot products.
            guard n >= 16 else { continue }
            var last = [Float](repeating: .nan, count: m * ldc)
            PackedGEMM.multiplyDirect(direct, weights: w, ldw: k, rows: 0..<m, b: x, ldb: n, columns: (n - 16)..<n, k: k,
                                      c: &last, ldc: ldc)
            for i in 0..<m {
                XCTAssertEqual(last[(i * ldc + n - 16)..<(i * ldc + n)].map(\.bitPattern),
                               whole[(i * ldc + n - 16)..<(i * ldc + n)].map(\.bitPattern), "\(m)×\(n)×\(k): row \(i)'s last block")
            }
        }
    }

    /// `GEMM.multiplyDirect`: the naive product's values, the same bits on 1, 2, 3 and 8 workers,
    /// each segment the bits it gets alone, the epilogue once on every element after its product,
    /// and parts too narrow for the kernel through `cblas_sgemm`.
    func testMultiplyDirectMatchesTheReference() throws {
        let direct = try direct()
        var generator = SplitMix64(state: 43)
        for (m, n, k, segments) in [(1, 1, 40, 1), (5, 70, 9, 1), (32, 10_816 / 8, 64, 1), (64, 1040, 128, 2), (40, 3 * 169, 96, 3),
                                    (128, 300, 128, 1), (16, 2 * 8, 64, 2)] {
            let w = (0..<(m * k)).map { _ in generator.uniform(-1, 1) }
            let x = (0..<(k * n)).map { _ in generator.uniform(-1, 1) }
            let expected = GEMM.reference(m: m, n: n, k: k, a: w, b: x)
            checkParallelProduct(m: m, n: n, k: k, segments: segments, x: x, expected: expected) { threads, b, width, segments, c, epilogue in
                GEMM.multiplyDirect(direct, m: m, n: width, k: k, a: w, lda: k, b: b, ldb: width, c: c, ldc: width,
                                    segments: segments, threads: threads, epilogue: epilogue)
            }
        }
    }
}
