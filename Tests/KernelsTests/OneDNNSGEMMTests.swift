@testable import Kernels
import TestSupport
import XCTest

/// oneDNN's `dnnl_sgemm` as `--gemm onednn` calls it (`OneDNN.Library.multiply`, through
/// `GEMM.serial` and `GEMM.multiply`) against the naive product on odd shapes, and the bits of
/// its parts the same on any worker count.
final class OneDNNSGEMMTests: XCTestCase {
    static func library(file: StaticString = #filePath, line: UInt = #line) throws -> OneDNN.Library {
        try TestTools.requireOneDNN(OneDNN.sgemmLibrary, file: file, line: line)
    }

    static func operands(m: Int, n: Int, k: Int, seed: UInt64) -> (a: [Float], b: [Float]) {
        var generator = SplitMix64(state: seed)
        let a = (0..<(m * k)).map { _ in generator.uniform(-1, 1) }
        let b = (0..<(k * n)).map { _ in generator.uniform(-1, 1) }
        return (a, b)
    }

    /// Each product within f32 rounding of the definition (summed in Double), with pitches wider
    /// than the operands, β = 0 over garbage in C, and β = 1 adding to what C holds.
    func testProductsMatchTheReferenceOnOddShapes() throws {
        let library = try Self.library()
        for (m, n, k) in [(1, 1, 1), (7, 13, 5), (33, 67, 129), (16, 515, 27), (130, 9, 4608), (3, 4099, 27)] {
            let (a, b) = Self.operands(m: m, n: n, k: k, seed: UInt64(m * n + k))
            let reference = GEMM.reference(m: m, n: n, k: k, a: a, b: b)
            let tolerance = Float(2e-6) * Float(k).squareRoot() * 4
            let ldc = n + 5
            var c = [Float](repeating: .nan, count: m * ldc)
            a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in
                    c.withUnsafeMutableBufferPointer { c in
                        GEMM.serial(m: m, n: n, k: k, a: a.baseAddress!, lda: k, b: b.baseAddress!, ldb: n, c: c.baseAddress!,
                                    ldc: ldc, onednn: library)
                    }
                }
            }
            for i in 0..<m {
                for j in 0..<n { XCTAssertEqual(c[i * ldc + j], reference[i * n + j], accuracy: tolerance, "\(m)×\(n)×\(k) [\(i), \(j)]") }
                for j in n..<ldc { XCTAssertTrue(c[i * ldc + j].isNaN, "\(m)×\(n)×\(k): wrote past the row at \(j)") }
            }
            // Accumulating: C + A·B.
            a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in
                    c.withUnsafeMutableBufferPointer { c in
                        GEMM.serial(m: m, n: n, k: k, a: a.baseAddress!, lda: k, b: b.baseAddress!, ldb: n, c: c.baseAddress!,
                                    ldc: ldc, accumulate: true, onednn: library)
                    }
                }
            }
            for i in 0..<m {
                for j in 0..<n {
                    XCTAssertEqual(c[i * ldc + j], 2 * reference[i * n + j], accuracy: 2 * tolerance, "accumulated \(m)×\(n)×\(k)")
                }
            }
        }
    }

    /// `GEMM.multiply` on oneDNN: 1, 2, 3 and 8 workers give the bits of its parts run one
    /// after another, each one `dnnl_sgemm` of its rows and columns; with segments (a batch),
    /// each segment gets the bits it gets alone; every element passes the epilogue once.
    func testPartsGiveTheSameBitsOnAnyThreadCount() throws {
        let library = try Self.library()
        for (m, n, k) in [(64, 1000, 300), (3, 4099, 27), (257, 130, 1153), (1024, 169, 600), (5, 7, 3)] {
            let (a, b) = Self.operands(m: m, n: n, k: k, seed: UInt64(k))
            let parted = GEMMTests.partsInOrder(m: m, n: n, k: k, a: a, b: b) { rows, columns, a, b, c in
                library.multiply(m: rows.count, n: columns.count, k: k, a: a, lda: k, b: b, ldb: n, c: c, ldc: n)
            }
            let reference = GEMM.reference(m: m, n: n, k: k, a: a, b: b)
            for (got, expected) in zip(parted, reference) { XCTAssertEqual(got, expected, accuracy: 1e-5 * Float(k).squareRoot()) }
            for threads in [1, 2, 3, 8] {
                var split = [Float](repeating: .nan, count: m * n)
                var seen = [Int](repeating: 0, count: m * n)
                let lock = NSLock()
                split.withUnsafeMutableBufferPointer { c in
                    let base = c.baseAddress!
                    GEMM.multiply(m: m, n: n, k: k, a: a, lda: k, b: b, ldb: n, c: base, ldc: n, threads: threads,
                                  onednn: library) { row, start, count in
                        let column = base.distance(to: start) - row * n
                        lock.lock()
                        for j in column..<(column + count) { seen[row * n + j] += 1 }
                        lock.unlock()
                    }
                }
                XCTAssertEqual(split.map(\.bitPattern), parted.map(\.bitPattern), "\(m)×\(n)×\(k) on \(threads) threads")
                XCTAssertEqual(Set(seen), [1], "\(m)×\(n)×\(k) on \(threads) threads: every element finished once")
            }
        }
        // Two images side by side: each gets the bits of its own product.
        let (m, width, k) = (48, 1030, 96)
        let (a, one) = Self.operands(m: m, n: width, k: k, seed: 5)
        let (_, two) = Self.operands(m: 1, n: width, k: k, seed: 6)
        var pair = [Float]()
        for row in 0..<k {
            let columns = (row * width)..<((row + 1) * width)
            pair += one[columns]
            pair += two[columns]
        }
        var alone = [[Float]]()
        for b in [one, two] {
            var c = [Float](repeating: .nan, count: m * width)
            GEMM.multiply(m: m, n: width, k: k, a: a, lda: k, b: b, ldb: width, c: &c, ldc: width, threads: 2, onednn: library)
            alone.append(c)
        }
        for threads in [1, 2] {
            var both = [Float](repeating: .nan, count: m * 2 * width)
            GEMM.multiply(m: m, n: 2 * width, k: k, a: a, lda: k, b: pair, ldb: 2 * width, c: &both, ldc: 2 * width,
                          segments: 2, threads: threads, onednn: library)
            for image in 0..<2 {
                var got = [Float]()
                for row in 0..<m {
                    let start: Int = row * 2 * width + image * width
                    got += both[start..<(start + width)]
                }
                XCTAssertEqual(got.map { $0.bitPattern }, alone[image].map { $0.bitPattern },
                               "image \(image) of a batch on \(threads) threads")
            }
        }
    }
}
