import COpenBLAS
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// OpenBLAS's own sgemm kernel for this CPU, driven with the weights packed once at load.
///
/// `cblas_sgemm` packs both operands into its kernel's panel layout on every call, and OpenBLAS
/// 0.3.21 has no API to pack one of them ahead of time. For the Winograd products of small
/// grids that packing is a large share of the call (each weight is used only as many times as
/// the image has tiles: 16 on a 13×13 grid under F(4×4)), and a 1×1 layer's weights are packed
/// again for each part of every call. OpenBLAS exports the pieces its level-3 driver is made
/// of, per CPU (`sgemm_kernel_COOPERLAKE`, its panel copies
/// `sgemm_itcopy_…` and `sgemm_oncopy_…`); this type resolves them for the core OpenBLAS picked
/// and runs the driver's loop itself, with the weights packed by the same copy routine once.
///
/// On the Winograd products of yolov3's grids it ran 1.2–2.3× the GFLOPS of `cblas_sgemm`, and
/// yolov3 ran 12% slower end to end without it (docs/bench-log.md).
///
/// Operands (row-major, as `GEMM`): `C[m×n] = W[m×k] · X[k×n]`, W the weights (m filters).
/// In OpenBLAS's column-major terms that is `Cᵀ = Xᵀ · Wᵀ`: the kernel's M side is our columns
/// (tiles, pixels), packed per call by `packColumns` in panels of `unrollM`; its N side is our
/// rows (filters), packed once by `packWeights` in panels of `unrollN`. K goes in blocks of at
/// most `kBlock`; each block is one kernel call per piece that adds into C, so C starts at zero.
///
/// Layouts (`packedWeights`, `packColumns`): for each K block `[k0, k0 + kk)`, its rows' panel
/// data starts at `k0 · rows`, and the panel holding row r (a multiple of `unrollN`) at
/// `k0 · rows + r · kk`; likewise columns with `unrollM`. So a piece of rows or columns starting
/// at a multiple of the unroll is one pointer into the packed data.
///
/// Products whose weights would serve few columns, or whose inputs are short (1×1 layers of
/// few filters and channels, the first layer's bands), gain little from packing: there OpenBLAS's
/// small-matrix kernel with β = 0 (`Kernel.direct`, AVX-512 cores) multiplies the plain operands
/// where they lie and writes C without it being zeroed first (`multiplyDirect`).
///
/// Where OpenBLAS lacks these symbols (a build without per-core kernels, another BLAS) or the
/// core is not one whose unrolls are known here, or the self-check fails, `kernel` is nil and
/// the engine calls `cblas_sgemm` instead. `GEMM.reference` is the naive product every use is
/// tested against. Bits: K blocks are added in order; whether an
/// element's bits depend on where its call's rows and columns are cut is up to the kernel (not
/// with `Cooperlake`'s; with `Zen`'s, which runs rows in blocks of 12, 8 and 4, they do), so the
/// callers cut by shape alone and the bits are the same on any thread count. They differ from
/// `cblas_sgemm`'s by rounding only (it cuts K at 256 or 320).
package enum PackedGEMM {
    typealias KernelFunction = @convention(c) (Int, Int, Int, Float, UnsafePointer<Float>?, UnsafePointer<Float>?,
                                                UnsafeMutablePointer<Float>?, Int) -> Int32
    typealias CopyFunction = @convention(c) (Int, Int, UnsafePointer<Float>?, Int, UnsafeMutablePointer<Float>?) -> Int32
    /// `direct(M, N, K, A, lda, alpha, B, ldb, C, ldc)`: C (column-major M×N) = alpha·A·B, all plain column-major.
    package typealias DirectFunction = @convention(c) (Int, Int, Int, UnsafePointer<Float>?, Int, Float,
                                                       UnsafePointer<Float>?, Int, UnsafeMutablePointer<Float>?, Int) -> Int32

    /// One core's kernel and copies.
    package struct Kernel: @unchecked Sendable, CustomStringConvertible {
        /// The symbol suffix, OpenBLAS's core name in capitals (`COOPERLAKE`).
        var core: String
        /// `kernel(M, N, K, alpha, packed A, packed B, C, ldc)`: C (column-major M×N) += alpha·A·B.
        var kernel: KernelFunction
        /// `itcopy(K, M, a, lda, packed)`: M columns of K-long runs (`a[k·lda + i]`) into panels of `unrollM`.
        var packColumnsCopy: CopyFunction
        /// `oncopy(K, N, b, ldb, packed)`: N rows of K contiguous floats (`b[j·ldb + k]`) into panels of `unrollN`.
        var packRowsCopy: CopyFunction
        var unrollM: Int
        var unrollN: Int
        /// OpenBLAS's small-matrix kernel with β = 0 (`sgemm_small_kernel_b0_nn_…`, AVX-512 cores
        /// only: `smallKernelCores`), which reads both plain operands where they lie and writes C
        /// without reading it (`multiplyDirect`); nil where the core has none or it failed its self-check.
        package var direct: DirectFunction?

        /// `sgemm_kernel_COOPERLAKE (16×4)`, and `sgemm_small_kernel_b0_nn_COOPERLAKE` when there
        /// is a direct routine: the symbols and the packed kernel's register block.
        package var description: String {
            "sgemm_kernel_\(core) (\(unrollM)×\(unrollN))" + (direct == nil ? "" : ", sgemm_small_kernel_b0_nn_\(core)")
        }
    }

    /// The register-block sizes of the sgemm kernels this type drives (OpenBLAS 0.3.21's
    /// `param.h`: `SGEMM_DEFAULT_UNROLL_M` / `_N` on x86-64). Cuts of rows and columns fall on
    /// multiples of `cutMultiple`, which all of them divide.
    static let unrolls: [String: (m: Int, n: Int)] = [
        "SKYLAKEX": (16, 4), "COOPERLAKE": (16, 4), "SAPPHIRERAPIDS": (16, 4),
        "HASWELL": (8, 4), "ZEN": (8, 4),
    ]
    /// The cores whose `sgemm_small_kernel_b0_nn_…` is OpenBLAS's AVX-512 small-matrix kernel
    /// (0.3.21's `KERNEL.SKYLAKEX`, which `KERNEL.COOPERLAKE` and `KERNEL.SAPPHIRERAPIDS`
    /// include). A DYNAMIC_ARCH library exports the symbol for every core, but for the others it
    /// is `generic/gemm_small_matrix_kernel_nn.c`, a plain triple loop: on `Haswell` and `Zen`
    /// the layers it took ran 20–35 times slower than on their packed kernel (docs/bench-log.md),
    /// so there `direct` is nil.
    static let smallKernelCores: Set<String> = ["SKYLAKEX", "COOPERLAKE", "SAPPHIRERAPIDS"]

    /// Rows and columns of a product are cut at multiples of this (panel boundaries of every
    /// kernel in `unrolls`).
    static let cutMultiple = 16

    /// Workers whose scratch a caller of the plain-B `multiply` sets aside (`GEMM.multiplyPacked`);
    /// more threads than this share the work among this many.
    package static let maximumWorkers = 8

    /// Most of K one kernel call takes (256 and 128 ran 3–30% slower on K = 512, docs/bench-log.md).
    static let kBlock = 512

    /// The kernel of the core OpenBLAS picked, checked against `cblas_sgemm` once; nil when not available.
    package static let kernel: Kernel? = {
        guard var found = resolve(core: GEMM.coreName), selfCheck(found) else { return nil }
        if found.direct != nil && !selfCheckDirect(found) { found.direct = nil }
        return found
    }()

    static func resolve(core: String) -> Kernel? {
        let suffix = core.uppercased()
        guard let unroll = unrolls[suffix] else { return nil }
        guard let kernel = BLASCore.symbol("sgemm_kernel_" + suffix),
              let itcopy = BLASCore.symbol("sgemm_itcopy_" + suffix),
              let oncopy = BLASCore.symbol("sgemm_oncopy_" + suffix) else { return nil }
        let direct = smallKernelCores.contains(suffix) ? BLASCore.symbol("sgemm_small_kernel_b0_nn_" + suffix) : nil
        return Kernel(core: suffix, kernel: unsafeBitCast(kernel, to: KernelFunction.self),
                      packColumnsCopy: unsafeBitCast(itcopy, to: CopyFunction.self),
                      packRowsCopy: unsafeBitCast(oncopy, to: CopyFunction.self),
                      unrollM: unroll.m, unrollN: unroll.n, direct: direct.map { unsafeBitCast($0, to: DirectFunction.self) })
    }

    /// True when `multiplyDirect` gives a product of `columns` columns `k` deep to the kernel
    /// (else to `cblas_sgemm`). OpenBLAS's small kernel sums each element in one FMA chain, k in
    /// order, in blocks of 16 columns (the last one masked), except for a last block of at most
    /// 8 columns when `k` ≥ 32, which it sums as dot products (another order) in a buffer it
    /// allocates: `multiplyDirect` then recomputes the last 16 columns instead, which needs 16
    /// columns in all.
    package static func runsDirect(columns: Int, k: Int) -> Bool { columns > 8 || k < 32 }

    /// `C[rows × columns] = W · B[:, columns]` written (not added) by `direct`, for rows `rows` of
    /// plain row-major weights `W` (`ldw`) and plain row-major `B` (`k × …`, `ldb`); C row-major
    /// with `ldc`. Each element is one FMA chain over k in order, so its bits do not depend on
    /// where the rows and columns are cut. A product the kernel does not take that way
    /// (`runsDirect`) goes through `cblas_sgemm` (`GEMM.serial`) on the same operands.
    package static func multiplyDirect(_ direct: DirectFunction, weights w: UnsafePointer<Float>, ldw: Int, rows: Range<Int>,
                                       b: UnsafePointer<Float>, ldb: Int, columns: Range<Int>, k: Int,
                                       c: UnsafeMutablePointer<Float>, ldc: Int) {
        guard runsDirect(columns: columns.count, k: k) else {
            GEMM.serial(m: rows.count, n: columns.count, k: k, a: w + rows.lowerBound * ldw, lda: ldw,
                        b: b + columns.lowerBound, ldb: ldb, c: c + rows.lowerBound * ldc + columns.lowerBound, ldc: ldc)
            return
        }
        // Column-major: Cᵀ (columns × rows) = Bᵀ (columns × k, lda = ldb) · Wᵀ (k × rows, ldb = ldw).
        func call(_ first: Int, _ count: Int) {
            _ = direct(count, rows.count, k, b + first, ldb, 1, w + rows.lowerBound * ldw, ldw,
                       c + rows.lowerBound * ldc + first, ldc)
        }
        let tail = columns.count % 16
        if k >= 32 && tail >= 1 && tail <= 8 && columns.count > 16 {
            call(columns.lowerBound, columns.count - tail)
            call(columns.upperBound - 16, 16)
        } else {
            call(columns.lowerBound, columns.count)
        }
    }

    /// Floats of packed data for a `rows × k` or `k × columns` operand: the same count, no padding.
    package static func packedCount(_ count: Int, k: Int) -> Int { count * k }

    /// Packs `rows` rows of `k` floats (`w[r·ldw + i]`, the weights) for `multiply`.
    package static func packWeights(_ kernel: Kernel, _ w: UnsafePointer<Float>, rows: Int, k: Int, ldw: Int,
                                    into packed: UnsafeMutablePointer<Float>) {
        for k0 in Swift.stride(from: 0, to: k, by: kBlock) {
            let kk = min(kBlock, k - k0)
            _ = kernel.packRowsCopy(kk, rows, w + k0, ldw, packed + k0 * rows)
        }
    }

    /// `rows × k` row-major weights packed for `multiply` (`GEMM.multiplyPacked`), as a new array.
    package static func packedWeights(_ kernel: Kernel, _ w: [Float], rows: Int, k: Int) -> [Float] {
        precondition(w.count == rows * k, "PackedGEMM.packedWeights: \(w.count) floats for \(rows)×\(k)")
        return [Float](unsafeUninitializedCapacity: rows * k) { packed, initialized in
            if rows * k > 0 {
                w.withUnsafeBufferPointer { packWeights(kernel, $0.baseAddress!, rows: rows, k: k, ldw: k, into: packed.baseAddress!) }
            }
            initialized = rows * k
        }
    }

    /// Packs `columns` columns of `k` floats (`x[i·ldx + c]`, row-major `k × columns`) for `multiply`.
    package static func packColumns(_ kernel: Kernel, _ x: UnsafePointer<Float>, columns: Int, k: Int, ldx: Int,
                                    into packed: UnsafeMutablePointer<Float>) {
        for k0 in Swift.stride(from: 0, to: k, by: kBlock) {
            let kk = min(kBlock, k - k0)
            _ = kernel.packColumnsCopy(kk, columns, x + k0 * ldx, ldx, packed + k0 * columns)
        }
    }

    /// `C[rows × cols] = W · X` for rows `rowRange` and columns `columnRange` of packed operands
    /// (`packWeights` of `rows` rows, `packColumns` of `columns` columns, both `k` deep); the
    /// ranges start at multiples of `cutMultiple`. C is row-major with `ldc`; its piece is zeroed first.
    package static func multiply(_ kernel: Kernel, packedWeights: UnsafePointer<Float>, rows: Int, rowRange: Range<Int>,
                                 packedColumns: UnsafePointer<Float>, columns: Int, columnRange: Range<Int>, k: Int,
                                 c: UnsafeMutablePointer<Float>, ldc: Int) {
        let (r0, c0) = (rowRange.lowerBound, columnRange.lowerBound)
        let origin = c + r0 * ldc + c0
        for row in 0..<rowRange.count { (origin + row * ldc).update(repeating: 0, count: columnRange.count) }
        for k0 in Swift.stride(from: 0, to: k, by: kBlock) {
            let kk = min(kBlock, k - k0)
            _ = kernel.kernel(columnRange.count, rowRange.count, kk, 1, packedColumns + k0 * columns + c0 * kk,
                              packedWeights + k0 * rows + r0 * kk, origin, ldc)
        }
    }

    /// `C[rowRange × columns] = W · B[:, columns]` for plain row-major B (`k × …`, `ldb`): each K
    /// block of the columns is packed into `scratch` (`columns.count × min(k, kBlock)` floats)
    /// and multiplied at once, so the scratch holds one block however deep K is. The same kernel
    /// calls, in the same order, as packing every block first (`packColumns`, `multiply`).
    package static func multiply(_ kernel: Kernel, packedWeights: UnsafePointer<Float>, rows: Int, rowRange: Range<Int>,
                                 b: UnsafePointer<Float>, ldb: Int, columns: Range<Int>, k: Int,
                                 scratch: UnsafeMutablePointer<Float>, c: UnsafeMutablePointer<Float>, ldc: Int) {
        let origin = c + rowRange.lowerBound * ldc + columns.lowerBound
        for row in 0..<rowRange.count { (origin + row * ldc).update(repeating: 0, count: columns.count) }
        for k0 in Swift.stride(from: 0, to: k, by: kBlock) {
            let kk = min(kBlock, k - k0)
            _ = kernel.packColumnsCopy(kk, columns.count, b + k0 * ldb + columns.lowerBound, ldb, scratch)
            _ = kernel.kernel(columns.count, rowRange.count, kk, 1, scratch, packedWeights + k0 * rows + rowRange.lowerBound * kk,
                              origin, ldc)
        }
    }

    /// Runs odd-shaped products through `multiplyDirect` (a 16-column block with a masked tail,
    /// a tail of at most 8 columns, rows cut in two) and `cblas_sgemm`, and accepts the routine
    /// when they agree to rounding.
    static func selfCheckDirect(_ kernel: Kernel) -> Bool {
        guard let direct = kernel.direct else { return false }
        let (m, k) = (37, 45)
        var seed: UInt32 = 54321
        func next() -> Float {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            return Float(seed >> 8) / Float(1 << 24) - 0.5
        }
        for n in [45, 53] {
            let w = (0..<(m * k)).map { _ in next() }, x = (0..<(k * n)).map { _ in next() }
            var expected = [Float](repeating: 0, count: m * n), got = [Float](repeating: .nan, count: m * n)
            GEMM.serial(m: m, n: n, k: k, a: w, lda: k, b: x, ldb: n, c: &expected, ldc: n)
            for rows in [0..<16, 16..<m] {
                multiplyDirect(direct, weights: w, ldw: k, rows: rows, b: x, ldb: n, columns: 0..<n, k: k, c: &got, ldc: n)
            }
            for i in 0..<(m * n) where !(abs(got[i] - expected[i]) <= 1e-4 * Float(k).squareRoot()) { return false }
        }
        return true
    }

    /// Runs one odd-shaped product (tails in every panel direction, two K blocks) through the
    /// kernel and through `cblas_sgemm`, and accepts the kernel when they agree to rounding: a
    /// symbol of the right name with another layout or signature would not.
    static func selfCheck(_ kernel: Kernel) -> Bool {
        let (m, n, k) = (37, 45, kBlock + 29)
        var w = [Float](repeating: 0, count: m * k), x = [Float](repeating: 0, count: k * n)
        var seed: UInt32 = 12345
        func next() -> Float {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            return Float(seed >> 8) / Float(1 << 24) - 0.5
        }
        for i in w.indices { w[i] = next() }
        for i in x.indices { x[i] = next() }
        var expected = [Float](repeating: 0, count: m * n), got = [Float](repeating: .nan, count: m * n)
        var packedW = [Float](repeating: 0, count: m * k), packedX = [Float](repeating: 0, count: k * n)
        GEMM.serial(m: m, n: n, k: k, a: w, lda: k, b: x, ldb: n, c: &expected, ldc: n)
        packWeights(kernel, w, rows: m, k: k, ldw: k, into: &packedW)
        packColumns(kernel, x, columns: n, k: k, ldx: n, into: &packedX)
        // Two pieces of rows and of columns, cut where `multiply`'s callers cut.
        for rows in [0..<16, 16..<m] {
            for columns in [0..<32, 32..<n] {
                multiply(kernel, packedWeights: packedW, rows: m, rowRange: rows, packedColumns: packedX, columns: n,
                         columnRange: columns, k: k, c: &got, ldc: n)
            }
        }
        for i in 0..<(m * n) {
            let bound: Float = 1e-4 * Float(k).squareRoot()
            guard abs(got[i] - expected[i]) <= bound else { return false }
        }
        return true
    }
}
