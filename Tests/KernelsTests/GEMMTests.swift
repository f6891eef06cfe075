@testable import Kernels
import TestSupport
import XCTest

/// `GEMM.multiply` cuts a product into parts from its shape alone and runs each part as one
/// single-threaded sgemm: the same bits on any number of workers, each image of a batch the
/// bits it gets alone, and the same values as the definition.
final class GEMMTests: XCTestCase {
    /// 1, 2, 3 and 8 workers give the bits of the parts run one after another on one thread,
    /// and each part is exactly one sgemm of its rows and columns.
    func testAnyThreadCountGivesTheSameBits() {
        var generator = SplitMix64(state: 9)
        for (m, n, k) in [(64, 1000, 300), (3, 4099, 27), (257, 130, 1153), (1024, 169, 600), (5, 7, 3), (96, 700, 200)] {
            let a = (0..<(m * k)).map { _ in generator.uniform(-1, 1) }
            let b = (0..<(k * n)).map { _ in generator.uniform(-1, 1) }
            let parted = Self.partsInOrder(m: m, n: n, k: k, a: a, b: b) { rows, columns, a, b, c in
                GEMM.serial(m: rows.count, n: columns.count, k: k, a: a, lda: k, b: b, ldb: n, c: c, ldc: n)
            }
            for threads in [1, 2, 3, 8] {
                var split = [Float](repeating: .nan, count: m * n)
                GEMM.multiply(m: m, n: n, k: k, a: a, lda: k, b: b, ldb: n, c: &split, ldc: n, threads: threads)
                XCTAssertEqual(split.map(\.bitPattern), parted.map(\.bitPattern), "\(m)×\(n)×\(k) on \(threads) threads")
            }
            for (row, column) in [(0, 0), (m - 1, n - 1), (m / 2, n / 3)] {
                let exact = (0..<k).reduce(0.0) { $0 + Double(a[row * k + $1]) * Double(b[$1 * n + column]) }
                XCTAssertEqual(Double(parted[row * n + column]), exact, accuracy: 1e-4 * Double(k).squareRoot())
            }
        }
    }

    /// C = A · B (row-major, `m × k` and `k × n`) computed part by part in `GEMM.parts`' order on
    /// the calling thread, `multiply` given each part's rows, columns and its corners of A, B
    /// and C (pitches k, n, n): what `GEMM.multiply` must equal on any thread count.
    static func partsInOrder(m: Int, n: Int, k: Int, a: [Float], b: [Float],
                             multiply: (_ rows: Range<Int>, _ columns: Range<Int>, UnsafePointer<Float>, UnsafePointer<Float>,
                                        UnsafeMutablePointer<Float>) -> Void) -> [Float] {
        var parted = [Float](repeating: .nan, count: m * n)
        let cut = GEMM.parts(m: m, n: n, k: k)
        for piece in 0..<cut.count {
            let range = GEMM.range(piece, of: cut.count, in: cut.byRows ? m : n)
            let (rows, columns) = cut.byRows ? (range, 0..<n) : (0..<m, range)
            a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in
                    parted.withUnsafeMutableBufferPointer { c in
                        multiply(rows, columns, a.baseAddress! + rows.lowerBound * k, b.baseAddress! + columns.lowerBound,
                                 c.baseAddress! + rows.lowerBound * n + columns.lowerBound)
                    }
                }
            }
        }
        return parted
    }

    /// The cut depends on the shape only: powers of two up to `maximumParts`, parts of at
    /// least 16 rows or columns that tile the product, one part for small products.
    func testPartsTileTheProduct() {
        for (m, n, k) in [(64, 1000, 300), (1024, 169, 4608), (16, 173_056, 27), (5, 7, 3), (255, 676, 512), (33, 100_000, 9)] {
            let cut = GEMM.parts(m: m, n: n, k: k)
            XCTAssertTrue([1, 2, 4, 8].contains(cut.count) && cut.count <= GEMM.maximumParts, "\(m)×\(n)×\(k)")
            if m * n * k < 1 << 21 { XCTAssertEqual(cut.count, 1) }
            XCTAssertEqual(cut.byRows, n < 512)
            let total = cut.byRows ? m : n
            var next = 0
            for piece in 0..<cut.count {
                let range = GEMM.range(piece, of: cut.count, in: total)
                XCTAssertEqual(range.lowerBound, next)
                XCTAssertGreaterThanOrEqual(range.count, cut.count == 1 ? 1 : 16)
                if piece < cut.count - 1 { XCTAssertEqual(range.upperBound % 16, 0) }
                next = range.upperBound
            }
            XCTAssertEqual(next, total)
        }
        XCTAssertEqual(GEMM.parts(m: 1024, n: 169, k: 4608).count, GEMM.maximumParts)
    }

    /// With `segments`, each run of columns (an image of a batch) gets the bits of the same
    /// product over that run alone, on 1 and 2 workers, whether the runs are cut by rows
    /// (thin) or by columns.
    func testSegmentsGetTheBitsTheyGetAlone() {
        var generator = SplitMix64(state: 21)
        for (m, width, k, segments) in [(256, 169, 600, 3), (64, 2704, 144, 2), (40, 600, 27, 4)] {
            let n = width * segments
            let a = (0..<(m * k)).map { _ in generator.uniform(-1, 1) }
            let b = (0..<(k * n)).map { _ in generator.uniform(-1, 1) }
            for threads in [1, 2] {
                var batch = [Float](repeating: .nan, count: m * n)
                GEMM.multiply(m: m, n: n, k: k, a: a, lda: k, b: b, ldb: n, c: &batch, ldc: n, segments: segments, threads: threads)
                for segment in 0..<segments {
                    // The segment's columns copied out: a product of its own.
                    var own = [Float](repeating: 0, count: k * width)
                    for row in 0..<k { for column in 0..<width { own[row * width + column] = b[row * n + segment * width + column] } }
                    var alone = [Float](repeating: .nan, count: m * width)
                    GEMM.multiply(m: m, n: width, k: k, a: a, lda: k, b: own, ldb: width, c: &alone, ldc: width, threads: 1)
                    for row in 0..<m {
                        let got = batch[(row * n + segment * width)..<(row * n + segment * width + width)]
                        XCTAssertEqual(got.map(\.bitPattern), alone[(row * width)..<(row * width + width)].map(\.bitPattern),
                                       "\(m)×\(width)×\(k), segment \(segment) of \(segments), row \(row), \(threads) threads")
                    }
                }
            }
        }
    }

    /// The epilogue each worker runs on its part sees every element of C exactly once, after
    /// the product: bias + leaky through it equals the product then the two-pass reference, bit
    /// for bit, on one part, parts by rows and parts by columns (with a ragged last part), on 1,
    /// 2 and 3 workers; the reported time is 0 unless asked for.
    func testEpilogueRunsOnceOnEveryElementAfterTheProduct() {
        var generator = SplitMix64(state: 13)
        for (m, n, k) in [(5, 7, 3), (257, 130, 1153), (64, 1000, 300), (40, 4099, 27)] {
            let a = (0..<(m * k)).map { _ in generator.uniform(-1, 1) }
            let b = (0..<(k * n)).map { _ in generator.uniform(-1, 1) }
            let biases = (0..<m).map { _ in generator.uniform(-1, 1) }
            var reference = [Float](repeating: 0, count: m * n)
            GEMM.multiply(m: m, n: n, k: k, a: a, lda: k, b: b, ldb: n, c: &reference, ldc: n, threads: 1)
            for row in 0..<m { Epilogue.reference(&reference[row * n], count: n, bias: biases[row], activation: .leaky) }
            for threads in [1, 2, 3] {
                var fused = [Float](repeating: .nan, count: m * n)
                var visits = [Int](repeating: 0, count: m * n)
                let seconds = fused.withUnsafeMutableBufferPointer { c in
                    visits.withUnsafeMutableBufferPointer { visits in
                        nonisolated(unsafe) let (base, visits) = (c.baseAddress!, visits)
                        return GEMM.multiply(m: m, n: n, k: k, a: a, lda: k, b: b, ldb: n, c: base, ldc: n, threads: threads,
                                             epilogue: { row, start, count in
                            for i in 0..<count { visits[start - base + i] += 1 }
                            Epilogue.biasActivation(start, count: count, bias: biases[row], activation: .leaky)
                        })
                    }
                }
                XCTAssertEqual(seconds, 0, "not asked to time")
                var timed = [Float](repeating: 0, count: m * n)
                let measured = GEMM.multiply(m: m, n: n, k: k, a: a, lda: k, b: b, ldb: n, c: &timed, ldc: n, threads: threads,
                                             timeEpilogue: true,
                                             epilogue: { _, start, count in
                    for i in 0..<count { start[i] = -start[i] }
                })
                XCTAssertGreaterThan(measured, 0, "asked to time")
                XCTAssertEqual(visits, [Int](repeating: 1, count: m * n), "\(m)×\(n)×\(k) on \(threads) threads")
                XCTAssertEqual(fused.map(\.bitPattern), reference.map(\.bitPattern), "\(m)×\(n)×\(k) on \(threads) threads")
            }
        }
    }

    /// `multiply` against the naive product summed in Double (`GEMM.reference`) on odd shapes.
    func testMatchesTheReference() {
        var generator = SplitMix64(state: 5)
        for (m, n, k) in [(1, 1, 1), (7, 13, 5), (33, 517, 29), (130, 71, 600)] {
            let a = (0..<(m * k)).map { _ in generator.uniform(-1, 1) }
            let b = (0..<(k * n)).map { _ in generator.uniform(-1, 1) }
            var c = [Float](repeating: .nan, count: m * n)
            GEMM.multiply(m: m, n: n, k: k, a: a, lda: k, b: b, ldb: n, c: &c, ldc: n, threads: 2)
            let expected = GEMM.reference(m: m, n: n, k: k, a: a, b: b)
            for i in 0..<(m * n) { XCTAssertEqual(c[i], expected[i], accuracy: 1e-5 * Float(k), "\(m)×\(n)×\(k) at \(i)") }
        }
    }
}
