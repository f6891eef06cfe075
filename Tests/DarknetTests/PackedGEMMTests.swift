@testable import Darknet
import XCTest

/// `PackedGEMM` against a product summed in Double, on odd shapes: tails in both panel
/// directions, K across blocks, pieces of rows and columns as the callers cut them.
final class PackedGEMMTests: XCTestCase {
    func testResolvesOnlyKnownCores() {
        XCTAssertNil(PackedGEMM.resolve(core: "NoSuchCore"))
        XCTAssertNil(PackedGEMM.resolve(core: "Prescott"), "a core whose unrolls are not in the table")
    }

    func testMatchesNaiveProductOnOddShapes() throws {
        let kernel = try XCTUnwrap(PackedGEMM.kernel, "OpenBLAS's \(GEMM.coreName) kernel is not available here")
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
                    var sum = 0.0, magnitude = 0.0
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

    /// `scatterRows` writes rows where `packColumns` puts them: every column count from 1 to 3
    /// panels and beyond (tails of every width), one K block and three (depth 1100), rows a few
    /// at a time in groups of 8 (the streamed F(4×4)'s) and of 5 (groups ending mid-panel). The
    /// packed data must be the same bits, with nothing left unwritten.
    func testScatterRowsIsPackColumns() throws {
        let kernel = try XCTUnwrap(PackedGEMM.kernel, "OpenBLAS's \(GEMM.coreName) kernel is not available here")
        XCTAssertTrue(PackedGEMM.columnPanelsHold, "\(kernel.core): the copy's layout is not `columnPanel`'s")
        for columns in Array(1...(3 * kernel.unrollM + 5)) + [169, 338] {
            for (depth, group) in [(3, 8), (19, 5), (1100, 8)] {
                let plain = (0..<(depth * columns)).map { Float($0) }
                var expected = [Float](repeating: .nan, count: depth * columns)
                PackedGEMM.packColumns(kernel, plain, columns: columns, k: depth, ldx: columns, into: &expected)
                var scattered = [Float](repeating: .nan, count: depth * columns)
                plain.withUnsafeBufferPointer { rows in
                    var first = 0
                    while first < depth {
                        // Groups never cross a K block (512 is a multiple of 8; 5-groups only at depth 19).
                        let count = min(group, depth - first)
                        PackedGEMM.scatterRows(kernel, rows.baseAddress! + first * columns, rowStride: columns, first: first,
                                               count: count, depth: depth, columns: columns, into: &scattered)
                        first += count
                    }
                }
                XCTAssertEqual(scattered.map(\.bitPattern), expected.map(\.bitPattern), "\(columns) columns, depth \(depth)")
            }
        }
    }

    /// Pieces of rows and columns (cut at multiples of 16) give the whole product's values, and
    /// the same cut gives the same bits every time. (Whether the bits depend on the cut is up to
    /// the kernel: with the `Cooperlake` one they do not, with `Zen`'s they do, as its rows run in
    /// blocks of 12, 8 and 4; so the engine's calls depend on the shape alone, never on the
    /// thread count.)
    func testPiecesGiveTheWholeProduct() throws {
        let kernel = try XCTUnwrap(PackedGEMM.kernel, "OpenBLAS's \(GEMM.coreName) kernel is not available here")
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

    /// `GEMM.multiplyPacked` (1×1 convolutions) gives `GEMM.multiply`'s values on shapes cut by
    /// rows and by columns, with a batch's segments, visits every element once in its epilogue,
    /// and gives the same bits on 1, 2 and 3 workers.
    func testMultiplyPackedIsMultiply() throws {
        let kernel = try XCTUnwrap(PackedGEMM.kernel, "OpenBLAS's \(GEMM.coreName) kernel is not available here")
        let saved = GEMM.threads
        defer { GEMM.threads = saved }
        var generator = SplitMix64(state: 37)
        for (m, n, k, segments) in [(5, 7, 3, 1), (64, 676, 256, 1), (255, 169, 1024, 1), (40, 2 * 300, 130, 2), (128, 2704, 70, 1)] {
            let w = (0..<(m * k)).map { _ in generator.uniform(-1, 1) }
            let x = (0..<(k * n)).map { _ in generator.uniform(-1, 1) }
            var packed = [Float](repeating: 0, count: m * k)
            PackedGEMM.packWeights(kernel, w, rows: m, k: k, ldw: k, into: &packed)
            var expected = [Float](repeating: 0, count: m * n)
            GEMM.threads = 1
            GEMM.multiply(m: m, n: n, k: k, a: w, lda: k, b: x, ldb: n, c: &expected, ldc: n, segments: segments)
            var scratch = [Float](repeating: .nan, count: PackedGEMM.maximumWorkers * GEMM.packedScratchCount(k: k))
            var outputs: [[Float]] = []
            for threads in [1, 2, 3] {
                GEMM.threads = threads
                var c = [Float](repeating: .nan, count: m * n)
                var visits = [Int](repeating: 0, count: m * n)
                c.withUnsafeMutableBufferPointer { c in
                    let base = c.baseAddress!
                    scratch.withUnsafeMutableBufferPointer { scratch in
                        visits.withUnsafeMutableBufferPointer { visits in
                            nonisolated(unsafe) let visits = visits
                            GEMM.multiplyPacked(kernel, m: m, n: n, k: k, packedA: packed, b: x, ldb: n, c: base, ldc: n,
                                                scratch: scratch.baseAddress!, segments: segments) { _, start, count in
                                for i in 0..<count { visits[base.distance(to: start) + i] += 1 }
                            }
                        }
                    }
                }
                XCTAssertEqual(visits, [Int](repeating: 1, count: m * n), "\(m)×\(n)×\(k), \(threads) workers")
                outputs.append(c)
            }
            for i in expected.indices {
                XCTAssertEqual(outputs[0][i], expected[i], accuracy: 1e-5 * Float(k).squareRoot(), "\(m)×\(n)×\(k) element \(i)")
            }
            for output in outputs.dropFirst() { XCTAssertTrue(output.map(\.bitPattern) == outputs[0].map(\.bitPattern)) }
        }
    }
}
