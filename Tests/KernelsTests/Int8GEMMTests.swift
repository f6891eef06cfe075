@testable import Kernels
import TestSupport
import XCTest

/// oneDNN's integer products as the engine calls them (`OneDNN.Library`, `Int8GEMM`) against
/// the naive integer product: exact, on odd shapes, any cut and worker count.
final class Int8GEMMTests: XCTestCase {
    static func library(file: StaticString = #filePath, line: UInt = #line) throws -> OneDNN.Library {
        try TestTools.requireOneDNN(OneDNN.loaded, file: file, line: line)
    }

    /// Values that saturate a `vpmaddubsw` pair sum where it could (weights at ±127, activations
    /// at the ends of what the library takes), and random ones.
    static func operands(m: Int, n: Int, k: Int, levels: Int32, seed: UInt64) -> (a: [Int8], b: [Int8]) {
        var generator = SplitMix64(state: seed)
        let half = Int(levels + 1) / 2
        let a = (0..<(m * k)).map { i in i % 3 == 0 ? (i % 2 == 0 ? Int8(127) : -127) : Int8(Int(generator.next() % 255) - 127) }
        let b = (0..<(k * n)).map { i in i % 5 == 0 ? Int8(i % 2 == 0 ? half - 1 : -half) : Int8(Int(generator.next() % UInt64(2 * half)) - half) }
        return (a, b)
    }

    func testProductsAreExactOnOddShapes() throws {
        let library = try Self.library()
        for (m, n, k) in [(1, 1, 1), (7, 13, 5), (33, 67, 129), (16, 515, 300), (130, 9, 4608)] {
            let (a, b) = Self.operands(m: m, n: n, k: k, levels: library.activationLevels, seed: UInt64(m * n))
            var c = [Int32](repeating: -1, count: m * n)
            a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in
                    c.withUnsafeMutableBufferPointer { c in
                        library.multiply(m: m, n: n, k: k, a: a.baseAddress!, lda: k, b: b.baseAddress!, ldb: n, c: c.baseAddress!, ldc: n)
                    }
                }
            }
            XCTAssertEqual(c, Int8GEMM.reference(m: m, n: n, k: k, a: a, b: b), "\(m)×\(n)×\(k)")
        }
    }

    /// `Int8GEMM.multiply` cut into parts (by filters and by columns, with segments) on 1, 2
    /// and 5 workers: every element once through the epilogue, each the exact sum.
    func testPartsCoverEveryElementOnce() throws {
        let library = try Self.library()
        for (m, n, k, segments) in [(96, 600, 64, 1), (40, 2 * 1030, 96, 2), (256, 200, 160, 1), (3, 5, 7, 1)] {
            let (a, b) = Self.operands(m: m, n: n, k: k, levels: library.activationLevels, seed: UInt64(k))
            let reference = Int8GEMM.reference(m: m, n: n, k: k, a: a, b: b)
            for threads in [1, 2, 5] {
                let ldc = n + 3
                var c = [Int32](repeating: -7, count: m * ldc)
                // Written by the workers, each element by the one that finishes it.
                let seen = UnsafeMutableBufferPointer<Int>.allocate(capacity: m * n)
                seen.initialize(repeating: 0)
                defer { seen.deallocate() }
                a.withUnsafeBufferPointer { a in
                    b.withUnsafeBufferPointer { b in
                        c.withUnsafeMutableBytes { c in
                            let base = c.baseAddress!
                            Int8GEMM.multiply(library, m: m, n: n, k: k, a: a.baseAddress!, lda: k, b: b.baseAddress!, ldb: n,
                                              c: base, ldc: ldc, segments: segments, threads: threads) { row, start, count in
                                let column = (base.distance(to: start) / 4) - row * ldc
                                for j in column..<(column + count) { seen[row * n + j] += 1 }
                            }
                        }
                    }
                }
                XCTAssertEqual(Set(seen), [1], "\(m)×\(n)×\(k) on \(threads) workers: every element finished once")
                for i in 0..<m {
                    XCTAssertEqual(Array(c[(i * ldc)..<(i * ldc + n)]), Array(reference[(i * n)..<((i + 1) * n)]), "row \(i)")
                    XCTAssertEqual(Array(c[(i * ldc + n)..<((i + 1) * ldc)]), [-7, -7, -7], "the pitch's padding untouched")
                }
            }
        }
    }

    /// The transposed product of unsigned bytes (`multiplyTransposed`): `C̃ = Xᵀ · Wᵀ`, cut by
    /// filters on 1 and 3 workers, each filter's column handed over once.
    func testTransposedProductIsExact() throws {
        let library = try Self.library()
        for (m, n, k) in [(5, 3, 7), (1024, 169, 96), (70, 121, 300)] {
            let (w, signed) = Self.operands(m: m, n: n, k: k, levels: library.activationLevels, seed: 3)
            let shift = Int(library.activationOffset)
            let x = signed.map { UInt8(Int($0) + shift) }
            let reference = Int8GEMM.reference(m: m, n: n, k: k, a: w, b: signed)
            for threads in [1, 3] {
                var c = [Int32](repeating: 0, count: n * m)
                // Each filter's column as handed over (offset, count, stride), by the worker that finishes it.
                let columns = UnsafeMutableBufferPointer<(Int, Int, Int, Int)>.allocate(capacity: m)
                columns.initialize(repeating: (0, 0, 0, 0))
                defer { columns.deallocate() }
                w.withUnsafeBufferPointer { w in
                    x.withUnsafeBufferPointer { x in
                        c.withUnsafeMutableBytes { c in
                            Int8GEMM.multiplyTransposed(library, m: m, n: n, k: k, input: x.baseAddress!, lda: n, weights: w.baseAddress!,
                                                        scratch: c.baseAddress!, threads: threads) { filter, first, count, stride in
                                let offset = UnsafeRawPointer(c.baseAddress!).distance(to: first)
                                columns[filter] = (columns[filter].0 + 1, offset, count, stride)
                            }
                        }
                    }
                }
                for (filter, column) in columns.enumerated() {
                    XCTAssertTrue(column == (1, 4 * filter, n, m), "\(m)×\(n)×\(k): filter \(filter) once, at its column: \(column)")
                }
                for i in 0..<m {
                    let sum = w[(i * k)..<((i + 1) * k)].reduce(0) { $0 + Int($1) } * shift
                    for j in 0..<n {
                        XCTAssertEqual(Int(c[j * m + i]), Int(reference[i * n + j]) + sum, "\(m)×\(n)×\(k) at \(i),\(j)")
                    }
                }
            }
        }
    }

    /// The library reports what the self-check found: 256 levels with VNNI, 128 without.
    func testLibraryDescribesItself() throws {
        let library = try Self.library()
        XCTAssertTrue(library.activationLevels == 255 || library.activationLevels == 127)
        XCTAssertEqual(library.activationOffset, (library.activationLevels + 1) / 2)
        XCTAssertTrue(library.version.hasPrefix("2.") || library.version.hasPrefix("3."), library.version)
        XCTAssertFalse(library.isa.isEmpty)
    }
}
