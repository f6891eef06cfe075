/// The int8 product of a convolution, `C[m×n] = A[m×k] · B[k×n]` with `A` the quantized
/// weights (`Int8`, m filters), `B` the quantized, unfolded input (`Int8`) and `C` the exact
/// `Int32` sums, on the engine's workers: the product is cut into parts as `GEMM.parts` cuts
/// an sgemm (by shape alone: columns when there are many, filters when there are few), each
/// part one single-threaded oneDNN call (`OneDNN.Library.multiply`), and each part's rows
/// handed to `epilogue` while they are in the worker's caches.
///
/// Bits: integer sums are exact whatever the cut, and each element of C is finished by one
/// epilogue call whose arithmetic depends on the element alone, so the results are the same
/// on any thread count, batch and run.
package enum Int8GEMM {
    /// Work on finished rows of C: `(row, first element, count)`. C's memory is raw: the
    /// caller's output floats hold the sums until the epilogue turns them into floats in place
    /// (`Quantization.dequantize`).
    package typealias RowEpilogue = (_ row: Int, _ start: UnsafeMutableRawPointer, _ count: Int) -> Void

    /// `C = A · B` (row-major; `lda`, `ldb`, `ldc` the row pitches), in `segments` equal runs
    /// of columns cut apart (images side by side, each cut as if alone), on up to `threads`
    /// workers; `epilogue` sees every element of C once, after its part is multiplied.
    package static func multiply(_ library: OneDNN.Library, m: Int, n: Int, k: Int, a: UnsafePointer<Int8>, lda: Int,
                                 b: UnsafePointer<Int8>, ldb: Int, c: UnsafeMutableRawPointer, ldc: Int,
                                 segments: Int = 1, threads: Int, epilogue: RowEpilogue) {
        precondition(segments >= 1 && n % segments == 0, "Int8GEMM.multiply: \(n) columns in \(segments) equal segments")
        let width = n / segments
        let cut = GEMM.parts(m: m, n: width, k: k)
        /// Part `index`: segment `index / cut.count`, piece `index % cut.count`.
        func part(_ index: Int) {
            let first = index / cut.count * width, piece = index % cut.count
            let rows = cut.byRows ? GEMM.range(piece, of: cut.count, in: m) : 0..<m
            let within = cut.byRows ? 0..<width : GEMM.range(piece, of: cut.count, in: width)
            let columns = (first + within.lowerBound)..<(first + within.upperBound)
            let start = c + 4 * (rows.lowerBound * ldc + columns.lowerBound)
            library.multiply(m: rows.count, n: columns.count, k: k, a: a + rows.lowerBound * lda, lda: lda,
                             b: b + columns.lowerBound, ldb: ldb, c: start.assumingMemoryBound(to: Int32.self), ldc: ldc)
            for row in rows { epilogue(row, c + 4 * (row * ldc + columns.lowerBound), columns.count) }
        }
        Parallel.forWorkers(of: segments * cut.count, work: m * n * k, threads: threads, minimumWork: 1 << 21) { _, range in
            for index in range { part(index) }
        }
    }

    /// Filter `filter`'s sums for `count` columns, `stride` Int32s apart from `first`.
    package typealias ColumnEpilogue = (_ filter: Int, _ first: UnsafeRawPointer, _ count: Int, _ stride: Int) -> Void

    /// The product of a layer with few columns (small grids), transposed: `C̃[n×m] = Xᵀ · Wᵀ`,
    /// `X` the unfolded input as `UInt8` (`k × n`, row pitch `lda`), `W` the weights (`m × k`),
    /// `C̃` into `scratch` (`n × m` Int32). oneDNN's u8×s8 GEMM runs such shapes 1.3–1.5× as
    /// fast as s8×s8 with the weights first (docs/bench-log.md). Cut by filters as `multiply`
    /// cuts few columns (`GEMM.parts`), each part one single-threaded call on its filters;
    /// `epilogue` sees each filter's column of C̃ once, after its part is multiplied.
    package static func multiplyTransposed(_ library: OneDNN.Library, m: Int, n: Int, k: Int, input: UnsafePointer<UInt8>,
                                           lda: Int, weights: UnsafePointer<Int8>, scratch: UnsafeMutableRawPointer,
                                           threads: Int, epilogue: ColumnEpilogue) {
        let cut = GEMM.parts(m: m, n: n, k: k)
        let parts = cut.byRows ? cut.count : 1
        Parallel.forWorkers(of: parts, work: m * n * k, threads: threads, minimumWork: 1 << 21) { _, range in
            for piece in range {
                let filters = GEMM.range(piece, of: parts, in: m)
                let c = scratch + 4 * filters.lowerBound
                library.multiplyTransposed(m: n, n: filters.count, k: k, a: input, lda: lda, b: weights + filters.lowerBound * k,
                                           ldb: k, c: c.assumingMemoryBound(to: Int32.self), ldc: m)
                for filter in filters { epilogue(filter, UnsafeRawPointer(scratch + 4 * filter), n, m) }
            }
        }
    }

    /// The naive product, summed in Int from the definition: what `OneDNN`'s self-check and the
    /// tests compare against (`C[m×n] = A[m×k] · B[k×n]`, row-major, contiguous).
    package static func reference(m: Int, n: Int, k: Int, a: [Int8], b: [Int8]) -> [Int32] {
        var c = [Int32](repeating: 0, count: m * n)
        for i in 0..<m {
            for j in 0..<n {
                var sum = 0
                for p in 0..<k { sum += Int(a[i * k + p]) * Int(b[p * n + j]) }
                c[i * n + j] = Int32(sum)
            }
        }
        return c
    }
}
