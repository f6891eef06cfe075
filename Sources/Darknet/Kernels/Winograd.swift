/// Winograd convolution F(m×m, 3×3), m = 4 or 2, for 3×3 stride-1 layers (groups 1, any
/// padding): input `C×H×W` → `filters × outH × outW`, each m×m output tile from an
/// (m+2)×(m+2) input tile with (m+2)² multiplications per (filter, channel) instead of 9m²
/// (F(4×4): 36 instead of 144; F(2×2): 16 instead of 36). Lavin & Gray, "Fast Algorithms for
/// Convolutional Neural Networks" (2015), with their `Bᵀ`, `G`, `Aᵀ` matrices.
///
/// The products for the (m+2)² transform positions ξ are OpenBLAS GEMMs:
/// `M[ξ] (filters × tiles) = U[ξ] (filters × C) · V[ξ] (C × tiles)`, where `U = G g Gᵀ` are the
/// weights transformed once at load (`transformWeights`) and `V = Bᵀ d B` the input tiles
/// transformed per forward. The output transform `Y = Aᵀ M A` adds the bias and applies the
/// activation in the same pass (darknet's `add_bias` + `activate_array`). The transforms run
/// over whole planes of tiles so their inner loops are contiguous and vectorise.
///
/// darknet computes the same sums in a different order (im2col + GEMM), so the results
/// differ by float rounding only: `WinogradTests` bounds the difference against the naive
/// reference relative to the sum of |products|. F(4×4) holds 4× the 3×3 weights, F(2×2) 16/9×.
enum Winograd {
    enum Variant: Int, Sendable {
        case f2 = 2
        case f4 = 4

        /// Output tile side m.
        var tile: Int { rawValue }
        /// Input tile side m + 2.
        var window: Int { rawValue + 2 }
        /// Transform positions (m + 2)².
        var positions: Int { window * window }
    }

    /// Tiles covering an `outHeight × outWidth` output.
    static func tiles(_ variant: Variant, outHeight: Int, outWidth: Int) -> (rows: Int, columns: Int) {
        ((outHeight + variant.tile - 1) / variant.tile, (outWidth + variant.tile - 1) / variant.tile)
    }

    /// Workspace floats `forward` needs: `V` (positions × C × tiles of a pass), `M` (positions ×
    /// filters × tiles of a pass) and per-worker scratch (see `blocking`).
    static func workspaceCount(_ variant: Variant, channels: Int, filters: Int, outHeight: Int, outWidth: Int,
                               batch: Int = 1) -> Int {
        let t = tiles(variant, outHeight: outHeight, outWidth: outWidth)
        let pass = blocking(variant, channels: channels, filters: filters, tileRows: t.rows, tileColumns: t.columns, batch: batch)
        return variant.positions * (channels + filters) * t.columns * pass.tileRows * pass.images
            + scratchCount(variant, tileColumns: t.columns, tileRows: pass.tileRows) * maximumWorkers
    }

    /// Scratch of one worker: the input transform's row-phase buffers (window × m × (rows + 1)
    /// × columns, plus m phase rows) or the output transform's m·window + m² planes of tiles.
    static func scratchCount(_ variant: Variant, tileColumns: Int, tileRows: Int) -> Int {
        let m = variant.tile, w = variant.window
        let input = w * m * (tileRows + 1) * tileColumns + m * (tileColumns + 1)
        let output = (m * w + m * m) * tileRows * tileColumns
        return max(input, output) + 16
    }

    /// `U = G g Gᵀ` for every filter and channel, laid out `positions × filters × channels`
    /// (position major) so `U[ξ]` is a row-major `filters × channels` GEMM operand. Computed
    /// in Double. `weights` is darknet's `filters × channels × 3 × 3`.
    static func transformWeights(_ variant: Variant, _ weights: UnsafeBufferPointer<Float>,
                                 filters: Int, channels: Int) -> [Float] {
        let w = variant.window
        // Every element is written below, so the array starts uninitialised (no zeroing pass).
        let count = variant.positions * filters * channels
        return [Float](unsafeUninitializedCapacity: count) { u, initialized in
            let plane = filters * channels
            nonisolated(unsafe) let u = u
            // Filters split across workers (load time: yolov3's 1.8M kernels take ~0.2 s on one core).
            Parallel.forChunks(of: filters, work: filters * channels * 64) { range in
                for f in range {
                    for c in 0..<channels {
                        let g = weights.baseAddress! + (f * channels + c) * 9
                        // tmp = G g (w×3, by columns), then each row of tmp times Gᵀ.
                        let c0 = gTransform(variant, Double(g[0]), Double(g[3]), Double(g[6]))
                        let c1 = gTransform(variant, Double(g[1]), Double(g[4]), Double(g[7]))
                        let c2 = gTransform(variant, Double(g[2]), Double(g[5]), Double(g[8]))
                        for row in 0..<w {
                            let t = gTransform(variant, c0[row], c1[row], c2[row])
                            for column in 0..<w {
                                u[(row * w + column) * plane + f * channels + c] = Float(t[column])
                            }
                        }
                    }
                }
            }
            initialized = count
        }
    }

    /// `G · (g0, g1, g2)` with Lavin's `G` for F(m, 3) (the first `window` lanes).
    @inline(__always)
    private static func gTransform(_ variant: Variant, _ g0: Double, _ g1: Double, _ g2: Double) -> SIMD8<Double> {
        switch variant {
        case .f2:
            return SIMD8(g0, (g0 + g1 + g2) / 2, (g0 - g1 + g2) / 2, g2, 0, 0, 0, 0)
        case .f4:
            return SIMD8(g0 / 4,
                         -(g0 + g1 + g2) / 6,
                         -(g0 - g1 + g2) / 6,
                         g0 / 24 + g1 / 12 + g2 / 6,
                         g0 / 24 - g1 / 12 + g2 / 6,
                         g2, 0, 0)
        }
    }
}
