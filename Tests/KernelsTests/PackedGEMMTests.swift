@testable import Kernels
import Foundation
import TestSupport
import XCTest

/// `PackedGEMM` against a product summed in Double, on odd shapes: tails in both panel
/// directions, K across blocks, pieces of rows and columns as the callers cut them.
final class PackedGEMMTests: XCTestCase {
    func testResolvesOnlyKnownCores() {
        XCTAssertNil(PackedGEMM.resolve(core: "NoSuchCore"))
        XCTAssertNil(PackedGEMM.resolve(core: "Prescott"), "a core whose unrolls are not in the table")
    }

    /// A DYNAMIC_ARCH OpenBLAS exports `sgemm_small_kernel_b0_nn_…` for every core, but only
    /// the AVX-512 cores' is a real kernel (the AVX2 cores' is a plain triple loop, 20–35 times
    /// slower): the direct routine is taken for those alone. Resolving reads symbols and runs
    /// nothing, so every core the library has is checked on any CPU.
    func testTakesTheSmallKernelOnlyOnAVX512Cores() throws {
        var checked: [String] = []
        for core in PackedGEMM.unrolls.keys.sorted() {
            guard let kernel = PackedGEMM.resolve(core: core) else { continue }
            XCTAssertEqual(kernel.direct != nil, PackedGEMM.smallKernelCores.contains(core), core)
            checked.append(core)
        }
        guard checked.contains("HASWELL") || checked.contains("ZEN") else {
            throw Skip.because("this OpenBLAS has none of the AVX2 cores' kernels (it has \(checked))")
        }
    }

    func testMatchesNaiveProductOnOddShapes() throws {
        let kernel = try PackedKernelSupport.kernel()
        var generator = SplitMix64(state: 29)
        for (m, n, k) in [(1, 1, 1), (3, 5, 7), (4, 16, 9), (17, 33, 65), (64, 49, 512), (70, 169, 513), (5, 100, 1100)] {
            let w = (0..<(m * k)).map { _ in generator.uniform(-1, 1) }
            let x = (0..<(k * n)).map { _ in generator.uniform(-1, 1) }
            var packedW = [Float](repeating: .nan, count: m * k), packedX = [Float](repeating: .nan, count: k * n)
            PackedGEMM.packWeights(kernel, w, rows: m, k: k, ldw: k, into: &packedW)
            PackedGEMM.packColumns(kernel, x, columns: n, k: k, ldx: n, into: &packedX)
            // C is 3 floats wider than n to prove ldc is honoured; the extra column stays NaN.
            let ldc = n + 3
            var c = [Float](repeating: .nan, count: m * ldc)
            let rowCuts = m > 16 ? [0..<16, 16..<m] : [0..<m]
            let columnCuts = n > 32 ? [0..<32, 32..<n] : [0..<n]
            for rows in rowCuts {
                for columns in columnCuts {
                    PackedGEMM.multiply(kernel, packedWeights: packedW, rows: m, rowRange: rows, packedColumns: packedX,
                                        columns: n, columnRange: columns, k: k, c: &c, ldc: ldc)
                }
            }
            for i in 0..<m {
                for j in 0..<n {
                    var sum = 0.0, magnitude = 0.0  // `GEMM.reference`'s sum, with the magnitude beside it
                    for l in 0..<k {
                        sum += Double(w[i * k + l]) * Double(x[l * n + j])
                        magnitude += abs(Double(w[i * k + l]) * Double(x[l * n + j]))
                    }
                    XCTAssertEqual(Double(c[i * ldc + j]), sum, accuracy: 1e-6 * (magnitude + 1), "\(m)×\(n)×\(k) at (\(i), \(j))")
                }
                for j in n..<ldc { XCTAssertTrue(c[i * ldc + j].isNaN, "\(m)×\(n)×\(k): wrote past column \(n) in row \(i)") }
            }
        }
    }

    /// Pieces of rows and columns (cut at multiples of 16) give the whole product's values, and
    /// the same cut gives the same bits every time. (Whether the bits depend on the cut is up to
    /// the kernel: with the `Cooperlake` one they do not, with `Zen`'s they do, as its rows run in
    /// blocks of 12, 8 and 4; so the engine's calls depend on the shape alone, never on the
    /// thread count.)
    func testPiecesGiveTheWholeProduct() throws {
        let kernel = try PackedKernelSupport.kernel()
        var generator = SplitMix64(state: 31)
        let (m, n, k) = (96, 81, 700)
        let w = (0..<(m * k)).map { _ in generator.uniform(-1, 1) }
        let x = (0..<(k * n)).map { _ in generator.uniform(-1, 1) }
        var packedW = [Float](repeating: 0, count: m * k), packedX = [Float](repeating: 0, count: k * n)
        PackedGEMM.packWeights(kernel, w, rows: m, k: k, ldw: k, into: &packedW)
        PackedGEMM.packColumns(kernel, x, columns: n, k: k, ldx: n, into: &packedX)
        var whole = [Float](repeating: .nan, count: m * n)
        PackedGEMM.multiply(kernel, packedWeights: packedW, rows: m, rowRange: 0..<m, packedColumns: packedX, columns: n,
                            columnRange: 0..<n, k: k, c: &whole, ldc: n)
        var runs: [[Float]] = []
        for _ in 0..<2 {
            var cut = [Float](repeating: .nan, count: m * n)
            for rows in [0..<32, 32..<48, 48..<m] {
                for columns in [0..<16, 16..<64, 64..<n] {
                    PackedGEMM.multiply(kernel, packedWeights: packedW, rows: m, rowRange: rows, packedColumns: packedX,
                                        columns: n, columnRange: columns, k: k, c: &cut, ldc: n)
                }
            }
            runs.append(cut)
        }
        for i in whole.indices { XCTAssertEqual(runs[0][i], whole[i], accuracy: 1e-5 * Float(k).squareRoot(), "element \(i)") }
        XCTAssertTrue(runs[0].map(\.bitPattern) == runs[1].map(\.bitPattern))
    }

    /// `GEMM.multiplyPacked` (weights packed once, B packed by each worker in blocks of `packedColumnBlock`
    /// columns): the naive product's values on odd shapes (K across blocks, shapes cut by rows
    /// and by columns, one part and several), the same bits on 1, 2, 3 and 8 workers, each
    /// segment the bits it gets alone, and the epilogue once on every element after its product.
    func testMultiplyPackedMatchesTheReference() throws {
        let kernel = try PackedKernelSupport.kernel()
        var generator = SplitMix64(state: 37)
        for (m, n, k, segments) in [(1, 1, 1, 1), (5, 70, 9, 1), (37, 130, 27, 2), (128, 169, 600, 1), (64, 1040, 64, 2),
                                    (40, 3 * 169, 256, 3)] {
            let w = (0..<(m * k)).map { _ in generator.uniform(-1, 1) }
            let x = (0..<(k * n)).map { _ in generator.uniform(-1, 1) }
            let packed = PackedGEMM.packedWeights(kernel, w, rows: m, k: k)
            let expected = GEMM.reference(m: m, n: n, k: k, a: w, b: x)
            var scratch = [Float](repeating: .nan, count: PackedGEMM.maximumWorkers * GEMM.packedScratchCount(k: k))
            checkParallelProduct(m: m, n: n, k: k, segments: segments, x: x, expected: expected) { threads, b, width, segments, c, epilogue in
                GEMM.multiplyPacked(kernel, m: m, n: width, k: k, packedA: packed, b: b, ldb: width, c: c, ldc: width,
                                    scratch: &scratch, segments: segments, threads: threads, epilogue: epilogue)
            }
        }
    }
}
