import COpenBLAS
import Dispatch

/// The one place the engine calls BLAS: `C[m×n] = A[m×k] · B[k×n] (+ C when accumulate)`,
/// all row-major and contiguous (darknet's `gemm(0,0,…)` as convolutions use it).
///
/// Threads: OpenBLAS itself runs single-threaded; the engine splits work across the workers
/// of its own pool (`WorkerPool`), as many as the caller's `threads`. OpenBLAS's own worker
/// threads spin (`sched_yield`) between calls and stole the cores from the Swift loops that
/// run between GEMMs (im2col, Winograd transforms, epilogues); with one pool for everything
/// nothing oversubscribes the cores.
///
/// Determinism: a product is cut into parts that depend only on its shape, never on the
/// thread count, and each part is one sgemm call, so the bits are the same on 1 thread or 8.
/// Cutting differently is not safe: whether an element's sum depends on the other rows and
/// columns of its call is up to OpenBLAS's kernel for the CPU. With the `Zen` kernel (OpenBLAS
/// 0.3.21 on AMD EPYC) a column's bits change with the call's width and a row's with where a
/// row split falls (exact only at multiples of 12); with `Cooperlake` any split at a multiple
/// of 16 was exact.
package enum GEMM {
    /// Runs the product in `parts(m:n:k:)`'s parts, spread over up to `threads` workers (each
    /// takes the next part when done), then `epilogue` on each part right after its product.
    /// Each part is one `cblas_sgemm`, or one `dnnl_sgemm` when `onednn` is given (`serial`).
    ///
    /// `segments` > 1 says the `n` columns are that many equal runs (a batch's images side by
    /// side): each run is cut as if it were the whole product, so an image's columns get the
    /// bits they get alone.
    ///
    /// `epilogue` runs on each part of C right after its product, while that part is still in
    /// the worker's caches (the convolutions' bias + activation). It sees every element of C
    /// exactly once; it is non-escaping, so passing one allocates nothing. Returns the mean
    /// seconds the workers spent in it when `timeEpilogue` (the profiler's epilogue phase), else 0.
    @discardableResult
    package static func multiply(m: Int, n: Int, k: Int,
                                 a: UnsafePointer<Float>, lda: Int,
                                 b: UnsafePointer<Float>, ldb: Int,
                                 c: UnsafeMutablePointer<Float>, ldc: Int,
                                 accumulate: Bool = false, segments: Int = 1, threads: Int, timeEpilogue: Bool = false,
                                 onednn: OneDNN.Library? = nil, epilogue: RowEpilogue = { _, _, _ in }) -> Double {
        precondition(segments >= 1 && n % segments == 0, "GEMM.multiply: \(n) columns in \(segments) equal segments")
        var product = Product(m: m, k: k, a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: ldc, accumulate: accumulate,
                              width: n / segments, cut: parts(m: m, n: n / segments, k: k), packed: nil)
        product.onednn = onednn
        return run(product, segments: segments, threads: threads, timeEpilogue: timeEpilogue, epilogue: epilogue)
    }

    /// `multiply` with A packed at load by `PackedGEMM.packWeights` (`m` rows, `k` deep, for
    /// `kernel`): the same parts, each worker packing its part's columns of B,
    /// `packedColumnBlock` columns by one K block at a time, into its slice of `scratch`
    /// (`packedScratchCount(k:)` floats each, `PackedGEMM.maximumWorkers` slices). This saves
    /// packing A on every call (`cblas_sgemm` packs both operands each time), which is most of
    /// the packing of a 1×1 layer's GEMM.
    @discardableResult
    package static func multiplyPacked(_ kernel: PackedGEMM.Kernel, m: Int, n: Int, k: Int, packedA: UnsafePointer<Float>,
                                       b: UnsafePointer<Float>, ldb: Int, c: UnsafeMutablePointer<Float>, ldc: Int,
                                       scratch: UnsafeMutablePointer<Float>, segments: Int = 1, threads: Int,
                                       timeEpilogue: Bool = false, epilogue: RowEpilogue = { _, _, _ in }) -> Double {
        precondition(segments >= 1 && n % segments == 0, "GEMM.multiplyPacked: \(n) columns in \(segments) equal segments")
        let product = Product(m: m, k: k, a: packedA, lda: k, b: b, ldb: ldb, c: c, ldc: ldc, accumulate: false,
                              width: n / segments, cut: parts(m: m, n: n / segments, k: k), packed: (kernel, scratch))
        return run(product, segments: segments, threads: min(threads, PackedGEMM.maximumWorkers),
                   timeEpilogue: timeEpilogue, epilogue: epilogue)
    }

    /// `multiply` with OpenBLAS's direct kernel (`PackedGEMM.multiplyDirect`) on plain operands:
    /// the same parts, each multiplied `directColumnBlock` columns at a time straight from B into
    /// C (nothing packed, C not zeroed first) and finished while that block is in cache.
    @discardableResult
    package static func multiplyDirect(_ direct: PackedGEMM.DirectFunction, m: Int, n: Int, k: Int,
                                       a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, ldb: Int,
                                       c: UnsafeMutablePointer<Float>, ldc: Int, segments: Int = 1, threads: Int,
                                       timeEpilogue: Bool = false, epilogue: RowEpilogue = { _, _, _ in }) -> Double {
        precondition(segments >= 1 && n % segments == 0, "GEMM.multiplyDirect: \(n) columns in \(segments) equal segments")
        var product = Product(m: m, k: k, a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: ldc, accumulate: false,
                              width: n / segments, cut: parts(m: m, n: n / segments, k: k), packed: nil)
        product.direct = direct
        return run(product, segments: segments, threads: threads, timeEpilogue: timeEpilogue, epilogue: epilogue)
    }

    /// Columns `multiplyDirect` multiplies and finishes at a time (a last piece narrower than
    /// 16 joins the one before it, so every call has 16 columns or the whole part).
    static let directColumnBlock = 128

    /// Columns of B a worker packs at a time in `multiplyPacked` (a multiple of every kernel's
    /// unroll): 128 columns of one K block fill half a core's L2 at most, and each of B's rows is
    /// read in 512-byte runs (1×1 layers at 104×104 ran 8–12% faster than with 64; 256 gained
    /// nothing more, docs/bench-log.md).
    static let packedColumnBlock = 128

    /// Scratch floats one worker of `multiplyPacked` uses: a block of columns, one K block deep.
    package static func packedScratchCount(k: Int) -> Int { packedColumnBlock * min(k, PackedGEMM.kBlock) }

    /// Runs `product`'s parts on up to `threads` workers, each taking the next part when done.
    private static func run(_ product: Product, segments: Int, threads: Int, timeEpilogue: Bool,
                            epilogue: RowEpilogue) -> Double {
        let total = segments * product.cut.count
        let workers = min(threads, total)
        guard workers > 1 else { return product.run(0..<total, worker: 0, epilogue, timed: timeEpilogue) }
        // The workers are done when `WorkerPool.run` returns, so the closure never escapes;
        // their parts are disjoint, so no two write the same element of C. Which worker runs a
        // part does not change its bits.
        return withoutActuallyEscaping(epilogue) { epilogue in
            nonisolated(unsafe) let (epilogue, product) = (epilogue, product)
            return withUnsafeTemporaryAllocation(of: Double.self, capacity: workers) { seconds in
                seconds.initialize(repeating: 0)
                nonisolated(unsafe) let seconds = seconds
                WorkerPool.shared.run(pieces: total, workers: workers) { worker, index in
                    seconds[worker] += product.run(index..<index + 1, worker: worker, epilogue, timed: timeEpilogue)
                }
                return seconds.reduce(0, +) / Double(workers)
            }
        }
    }

    /// One `multiply` call's operands and cut (a struct, not captured local functions, so that
    /// handing it to the workers allocates nothing).
    private struct Product {
        var m, k: Int
        var a: UnsafePointer<Float>, lda: Int
        var b: UnsafePointer<Float>, ldb: Int
        var c: UnsafeMutablePointer<Float>, ldc: Int
        var accumulate: Bool
        /// Columns per segment, and how each segment is cut.
        var width: Int
        var cut: (byRows: Bool, count: Int)
        /// For `multiplyPacked`: A is packed, and each worker packs B's columns into its scratch.
        var packed: (kernel: PackedGEMM.Kernel, scratch: UnsafeMutablePointer<Float>)?
        /// For `multiplyDirect`: both operands plain, multiplied by OpenBLAS's direct kernel.
        var direct: PackedGEMM.DirectFunction?
        /// For `multiply` on oneDNN: each part one `dnnl_sgemm` instead of `cblas_sgemm`.
        var onednn: OneDNN.Library?

        /// Part `index` (segment `index / cut.count`, piece `index % cut.count`): its rows and columns of C.
        func part(_ index: Int) -> (rows: Range<Int>, columns: Range<Int>) {
            let first = index / cut.count * width
            let piece = index % cut.count
            if cut.byRows { return (GEMM.range(piece, of: cut.count, in: m), first..<first + width) }
            let columns = GEMM.range(piece, of: cut.count, in: width)
            return (0..<m, first + columns.lowerBound..<first + columns.upperBound)
        }

        /// The parts `indices`, one after another: each one sgemm, then the epilogue on it.
        /// Returns the seconds spent in the epilogue when `timed`.
        func run(_ indices: Range<Int>, worker: Int, _ epilogue: RowEpilogue, timed: Bool) -> Double {
            var seconds = 0.0
            for index in indices {
                let (rows, columns) = part(index)
                if let direct {
                    var first = columns.lowerBound
                    while first < columns.upperBound {
                        let end = columns.upperBound - first < GEMM.directColumnBlock + 16
                            ? columns.upperBound : first + GEMM.directColumnBlock
                        PackedGEMM.multiplyDirect(direct, weights: a, ldw: lda, rows: rows, b: b, ldb: ldb,
                                                  columns: first..<end, k: k, c: c, ldc: ldc)
                        seconds += finish(rows: rows, columns: first..<end, epilogue, timed: timed)
                        first = end
                    }
                    continue
                }
                guard let (kernel, scratch) = packed else {
                    GEMM.serial(m: rows.count, n: columns.count, k: k, a: a + rows.lowerBound * lda, lda: lda,
                                b: b + columns.lowerBound, ldb: ldb, c: c + rows.lowerBound * ldc + columns.lowerBound,
                                ldc: ldc, accumulate: accumulate, onednn: onednn)
                    seconds += finish(rows: rows, columns: columns, epilogue, timed: timed)
                    continue
                }
                // Each block of columns finished while it is still in cache.
                let own = scratch + worker * GEMM.packedScratchCount(k: k)
                for first in Swift.stride(from: columns.lowerBound, to: columns.upperBound, by: GEMM.packedColumnBlock) {
                    let block = first..<min(first + GEMM.packedColumnBlock, columns.upperBound)
                    PackedGEMM.multiply(kernel, packedWeights: a, rows: m, rowRange: rows, b: b, ldb: ldb, columns: block,
                                        k: k, scratch: own, c: c, ldc: ldc)
                    seconds += finish(rows: rows, columns: block, epilogue, timed: timed)
                }
            }
            return seconds
        }

        /// The epilogue on rows `rows`, columns `columns` of C; its seconds when `timed`.
        private func finish(rows: Range<Int>, columns: Range<Int>, _ epilogue: RowEpilogue, timed: Bool) -> Double {
            let start = timed ? ProfileClock.now() : 0
            for row in rows { epilogue(row, c + row * ldc + columns.lowerBound, columns.count) }
            return timed ? ProfileClock.seconds(from: start, to: ProfileClock.now()) : 0
        }
    }

    /// Most parts a product is cut into, so up to this many workers share one. Each part packs
    /// its own copy of the operand it shares (B for row parts, A for column parts), so more
    /// parts cost more packing (yolov3's im2col and 1×1 layers ran 0–4% slower on 2 threads
    /// with 4 parts than with 2, and 5–7% with 8).
    static let maximumParts = 4

    /// How a product is cut, from its shape alone: below 2²¹ multiply-adds one part; else by
    /// columns when there are many (each part packs all of A once), by rows when there are few
    /// (thin GEMMs such as 13×13 layers ran up to twice as fast cut by rows), into a power of
    /// two of parts (even shares for 2 or 4 workers) of at least 32 rows or columns.
    static func parts(m: Int, n: Int, k: Int) -> (byRows: Bool, count: Int) {
        let byRows = n < 512
        guard m * n * k >= 1 << 21 else { return (byRows, 1) }
        let most = min(maximumParts, (byRows ? m : n) / 32)
        var count = 1
        while count * 2 <= most { count *= 2 }
        return (byRows, count)
    }

    /// Part `piece` of `0..<total` cut in `count`, its bounds rounded down to multiples of 16 so
    /// each part stays cache-line and kernel-block aligned.
    static func range(_ piece: Int, of count: Int, in total: Int) -> Range<Int> {
        let start = (total * piece / count) & ~15
        let end = piece == count - 1 ? total : (total * (piece + 1) / count) & ~15
        return start..<end
    }

    /// Work done on finished rows of C: `(row, first element, count)` for each row segment of
    /// one worker's part (`multiply`'s `epilogue`).
    package typealias RowEpilogue = (_ row: Int, _ start: UnsafeMutablePointer<Float>, _ count: Int) -> Void

    /// One single-threaded sgemm on the calling thread (for callers that parallelise themselves):
    /// OpenBLAS's, or oneDNN's `dnnl_sgemm` when `onednn` is given (β = 0 or 1 as asked, one thread).
    ///
    /// Without `accumulate`, C is zeroed here (`memset`, a row or the whole block at a time) and
    /// the sgemm accumulates into it (β = 1). With β = 0 OpenBLAS zeroes C itself with a generic
    /// kernel of scalar stores column by column (its `sgemm_beta`), which took a tenth of
    /// yolov3-tiny's forward under perf. The bits are the same: OpenBLAS's β = 0 is also a zero
    /// fill followed by accumulation.
    package static func serial(m: Int, n: Int, k: Int,
                               a: UnsafePointer<Float>, lda: Int,
                               b: UnsafePointer<Float>, ldb: Int,
                               c: UnsafeMutablePointer<Float>, ldc: Int,
                               accumulate: Bool = false, onednn: OneDNN.Library? = nil) {
        if let onednn {
            onednn.multiply(m: m, n: n, k: k, a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: ldc, accumulate: accumulate)
            return
        }
        _ = blasSingleThreaded
        if !accumulate {
            if ldc == n {
                c.update(repeating: 0, count: m * n)
            } else {
                for row in 0..<m { (c + row * ldc).update(repeating: 0, count: n) }
            }
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans,
                    Int32(m), Int32(n), Int32(k), 1, a, Int32(lda), b, Int32(ldb),
                    1, c, Int32(ldc))
    }

    /// Workers a network gets when it asks for none in particular: what OpenBLAS would have used
    /// (one per core, or `OPENBLAS_NUM_THREADS`), read before OpenBLAS is set single-threaded.
    package static let defaultThreads: Int = {
        _ = BLASCore.choice
        return max(1, Int(openblas_get_num_threads()))
    }()

    /// Done once, before the first sgemm: the core settled (`BLASCore`), OpenBLAS's own threads
    /// never started.
    private static let blasSingleThreaded: Void = {
        _ = defaultThreads
        openblas_set_num_threads(1)
    }()

    /// The OpenBLAS kernel the engine runs on (`Haswell`, `SkylakeX`, `Zen`…): OpenBLAS's pick,
    /// or the one `BLASCore` put in its place.
    package static var coreName: String { BLASCore.choice.running }

    /// OpenBLAS's build configuration string (it names the core it runs).
    package static var configuration: String {
        _ = BLASCore.choice
        guard let config = openblas_get_config() else { return "unknown" }
        return String(cString: config)
    }

    /// The naive product, summed in Double from the definition: the reference `multiply` and
    /// `PackedGEMM` are tested against (`C[m×n] = A[m×k] · B[k×n]`, row-major, contiguous).
    package static func reference(m: Int, n: Int, k: Int, a: [Float], b: [Float]) -> [Float] {
        var c = [Float](repeating: 0, count: m * n)
        for i in 0..<m {
            for j in 0..<n {
                var sum = 0.0
                for p in 0..<k { sum += Double(a[i * k + p]) * Double(b[p * n + j]) }
                c[i * n + j] = Float(sum)
            }
        }
        return c
    }
}
