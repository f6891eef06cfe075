/// Winograd convolution F(4×4, 3×3) for 3×3 stride-1 layers (groups 1, any padding): input
/// `C×H×W` → `filters × outH × outW`, each 4×4 output tile from a 6×6 input tile with 36
/// multiplications per (filter, channel) instead of 144. Lavin & Gray, "Fast Algorithms for
/// Convolutional Neural Networks" (2015), with their `Bᵀ`, `G`, `Aᵀ` matrices.
///
/// The products for the 36 transform positions ξ are GEMMs:
/// `M[ξ] (filters × tiles) = U[ξ] (filters × C) · V[ξ] (C × tiles)`, where `U = G g Gᵀ` are the
/// transformed weights and `V = Bᵀ d B` the input tiles transformed per forward. The output
/// transform `Y = Aᵀ M A` adds the bias and applies the activation in the same pass (darknet's
/// `add_bias` + `activate_array`). The transforms run over whole planes of tiles so their inner
/// loops are contiguous and vectorise.
///
/// Two ways to hold the weights (`WinogradWeights`): transformed once at load (4× darknet's
/// floats), or plain and transformed during each pass, a block of filters at a time, straight
/// into the packed kernel's layout (`WinogradStreamed.swift`: darknet's memory).
///
/// darknet computes the same sums in a different order (im2col + GEMM), so the results differ
/// by float rounding only: `WinogradTests` bounds the difference against the naive convolution
/// relative to the sum of |products|, and each transform against its matrices written out
/// (`WinogradReference.swift`).
package enum Winograd {
    /// Output tile side.
    package static let tile = 4
    /// Input tile side: tile + 2.
    package static let window = 6
    /// Transform positions: window².
    package static let positions = 36

    /// Tiles covering an `outHeight × outWidth` output.
    package static func tiles(outHeight: Int, outWidth: Int) -> (rows: Int, columns: Int) {
        ((outHeight + tile - 1) / tile, (outWidth + tile - 1) / tile)
    }

    /// True when Winograd F(4×4, 3×3) computes a convolution of this shape: 3×3, stride 1, no
    /// dilation (groups are the caller's to exclude).
    package static func runs(_ g: ConvolutionGeometry) -> Bool {
        g.size == 3 && g.strideX == 1 && g.strideY == 1 && g.dilation == 1
    }

    /// `U = G g Gᵀ` for every filter and channel, laid out `positions × filters × channels`
    /// (position major) so `U[ξ]` is a row-major `filters × channels` GEMM operand; each
    /// position's plane packed for `packed` when given (`PackedGEMM.packWeights`). Computed in
    /// Double. `weights` is darknet's `filters × channels × 3 × 3`.
    ///
    /// Four kernels go through the transform together in `SIMD4<Double>` lanes (the same
    /// operations lane by lane, so the bits of one at a time: `lanes: 1` is the reference).
    package static func transformWeights(_ weights: UnsafeBufferPointer<Float>, filters: Int, channels: Int,
                                         packed: PackedGEMM.Kernel?, threads: Int, lanes: Int = 4) -> [Float] {
        // Every element is written below, so the array starts uninitialised (no zeroing pass).
        let plane = filters * channels
        return [Float](unsafeUninitializedCapacity: positions * plane) { u, initialized in
            nonisolated(unsafe) let u = u
            // Fresh memory, mapped in 2 MiB slices by the workers before the scattered writes below.
            Prefault.write(UnsafeMutableRawBufferPointer(u), threads: threads)
            // Kernels (k = f·channels + c) in blocks split across workers. Each block is
            // transformed into a local buffer, then written as one run per position: writing
            // kernel by kernel touched 36 places `plane` floats apart, and with planes of 2 MiB
            // all of them fall in one cache set.
            let blockSize = 256
            Parallel.forChunks(of: (plane + blockSize - 1) / blockSize, work: plane * 64, threads: threads) { range in
                withUnsafeTemporaryAllocation(of: Float.self, capacity: positions * blockSize) { local in
                    for block in range {
                        let first = block * blockSize, n = min(blockSize, plane - first)
                        let source = weights.baseAddress! + first * 9, target = local.baseAddress!
                        var j = 0
                        while lanes == 4, j + 4 <= n {
                            transformFour(source + j * 9, into: target + j, stride: blockSize)
                            j += 4
                        }
                        while j < n {
                            transformOne(source + j * 9, into: target + j, stride: blockSize)
                            j += 1
                        }
                        for position in 0..<positions {
                            (u.baseAddress! + position * plane + first).initialize(from: target + position * blockSize, count: n)
                        }
                    }
                }
            }
            if let packed {
                WinogradProducts.packPositions(u.baseAddress!, positions: positions, filters: filters, channels: channels,
                                               kernel: packed, threads: threads)
            }
            initialized = positions * plane
        }
    }

    /// One kernel `g` (9 floats): element (row, column) of `U` goes to `out[(row·6 + column)·stride]`.
    @inline(__always)
    private static func transformOne(_ g: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>, stride: Int) {
        kernelTransform({ Double(g[$0]) }, { index, value in out[index * stride] = Float(value) })
    }

    /// Four consecutive kernels in the lanes of `SIMD4<Double>`: element (row, column) of kernel
    /// `i` goes to `out[(row·6 + column)·stride + i]`.
    @inline(__always)
    private static func transformFour(_ g: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>, stride: Int) {
        let tap = { (t: Int) in SIMD4<Double>(Double(g[t]), Double(g[9 + t]), Double(g[18 + t]), Double(g[27 + t])) }
        kernelTransform(tap) { index, value in
            UnsafeMutableRawPointer(out + index * stride).storeBytes(of: SIMD4<Float>(value), as: SIMD4<Float>.self)
        }
    }

    /// One kernel's `U = G g Gᵀ` in Double (or four kernels, one per lane): `tmp = G g` column by
    /// column, then each row of `tmp` times `Gᵀ`; element (row, column) is
    /// `store(row·6 + column, value)`. `tap(t)` is the kernel's tap t (row-major 3×3).
    /// Lavin's `G` rows: (¼, 0, 0), (−⅙, −⅙, −⅙), (−⅙, ⅙, −⅙), (1/24, 1/12, ⅙), (1/24, −1/12, ⅙), (0, 0, 1).
    @inline(__always)
    static func kernelTransform<T: TransformValue>(_ tap: (Int) -> T, _ store: (Int, T) -> Void) {
        @inline(__always) func G(_ g0: T, _ g1: T, _ g2: T) -> (T, T, T, T, T, T) {
            (g0 / 4, -(g0 + g1 + g2) / 6, -(g0 - g1 + g2) / 6, g0 / 24 + g1 / 12 + g2 / 6, g0 / 24 - g1 / 12 + g2 / 6, g2)
        }
        forEachRow(G(tap(0), tap(3), tap(6)), G(tap(1), tap(4), tap(7)), G(tap(2), tap(5), tap(8))) { r, a, b, c in
            let t = G(a, b, c)
            store(r * 6, t.0)
            store(r * 6 + 1, t.1)
            store(r * 6 + 2, t.2)
            store(r * 6 + 3, t.3)
            store(r * 6 + 4, t.4)
            store(r * 6 + 5, t.5)
        }
    }

    /// The second half of F(4×4)'s `G g Gᵀ`, for the load-time transform (in Double) and the
    /// streamed one (in Float lanes) alike: `row(r, c0.r, c1.r, c2.r)` for each of the six
    /// rows of `tmp = G g`, given its three columns (`G` down each column of taps).
    @inline(__always)
    static func forEachRow<T>(_ c0: (T, T, T, T, T, T), _ c1: (T, T, T, T, T, T), _ c2: (T, T, T, T, T, T),
                              _ row: (Int, T, T, T) -> Void) {
        row(0, c0.0, c1.0, c2.0)
        row(1, c0.1, c1.1, c2.1)
        row(2, c0.2, c1.2, c2.2)
        row(3, c0.3, c1.3, c2.3)
        row(4, c0.4, c1.4, c2.4)
        row(5, c0.5, c1.5, c2.5)
    }
}

/// What the weight transform computes with: `Double`, or `SIMD4<Double>` for four kernels at
/// once (each lane the same IEEE operations as the scalar).
protocol TransformValue {
    static func + (lhs: Self, rhs: Self) -> Self
    static func - (lhs: Self, rhs: Self) -> Self
    static func / (lhs: Self, rhs: Double) -> Self
    static prefix func - (operand: Self) -> Self
}

extension Double: TransformValue {}
extension SIMD4: TransformValue where Scalar == Double {}
