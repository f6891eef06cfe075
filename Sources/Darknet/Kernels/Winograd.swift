/// Winograd convolution F(4×4, 3×3) for 3×3 stride-1 layers (groups 1, any padding):
/// input `C×H×W` → `filters × outH × outW`, each 4×4 output tile from a 6×6 input tile with
/// 36 multiplications per (filter, channel) instead of 144 (Lavin & Gray, "Fast Algorithms
/// for Convolutional Neural Networks", 2015, with their F(4×4, 3×3) matrices `Bᵀ`, `G`, `Aᵀ`).
///
/// The products for the 36 transform positions ξ are 36 OpenBLAS GEMMs:
/// `M[ξ] (filters × tiles) = U[ξ] (filters × C) · V[ξ] (C × tiles)`, where `U = G g Gᵀ` are the
/// weights transformed once at load (`WinogradWeights`) and `V = Bᵀ d B` the input tiles
/// transformed per forward. The output transform `Y = Aᵀ M A` adds the bias and applies the
/// activation in the same pass (darknet's `add_bias` + `activate_array`). The transforms run
/// along rows of tiles so their inner loops are contiguous and vectorise.
///
/// darknet computes the same sums in a different order (im2col + GEMM), so the results
/// differ by float rounding only: `WinogradTests` bounds the difference against the naive
/// reference relative to the sum of |products|.
enum Winograd {
    /// Output tile side (m) and input tile side (m + r − 1 = 6).
    static let tile = 4
    static let window = 6
    static let positions = 36

    /// Tiles covering an `outHeight × outWidth` output.
    static func tiles(outHeight: Int, outWidth: Int) -> (rows: Int, columns: Int) {
        ((outHeight + tile - 1) / tile, (outWidth + tile - 1) / tile)
    }

    /// Workspace floats `forward` needs: `V` (36 × C × tiles of a pass), `M` (36 × filters ×
    /// tiles of a pass) and per-worker scratch (see `blocking`).
    static func workspaceCount(channels: Int, filters: Int, outHeight: Int, outWidth: Int, batch: Int = 1) -> Int {
        let t = tiles(outHeight: outHeight, outWidth: outWidth)
        let pass = blocking(channels: channels, filters: filters, tileRows: t.rows, tileColumns: t.columns, batch: batch)
        return positions * (channels + filters) * t.columns * pass.tileRows * pass.images
            + scratchCount(tileColumns: t.columns, tileRows: pass.tileRows) * maximumWorkers
    }

    /// Scratch of one worker: the input transform's row-phase buffers (6 × 4 × (rows + 1) ×
    /// columns, plus 4 phase rows) or the output transform's 40 planes of every tile.
    static func scratchCount(tileColumns: Int, tileRows: Int) -> Int {
        let input = window * 4 * (tileRows + 1) * tileColumns + 4 * (tileColumns + 1)
        let output = 40 * tileRows * tileColumns
        return max(input, output) + 16
    }

    /// `U = G g Gᵀ` for every filter and channel, laid out `36 × filters × channels` (position
    /// major) so `U[ξ]` is a row-major `filters × channels` GEMM operand. Computed in Double.
    /// `weights` is darknet's `filters × channels × 3 × 3`.
    static func transformWeights(_ weights: UnsafeBufferPointer<Float>, filters: Int, channels: Int) -> [Float] {
        var u = [Float](repeating: 0, count: positions * filters * channels)
        u.withUnsafeMutableBufferPointer { u in
            let plane = filters * channels
            for f in 0..<filters {
                for c in 0..<channels {
                    let g = weights.baseAddress! + (f * channels + c) * 9
                    // tmp = G g (6×3, by columns), then each row of tmp times Gᵀ.
                    let c0 = gTransform(Double(g[0]), Double(g[3]), Double(g[6]))
                    let c1 = gTransform(Double(g[1]), Double(g[4]), Double(g[7]))
                    let c2 = gTransform(Double(g[2]), Double(g[5]), Double(g[8]))
                    for row in 0..<6 {
                        let t = gTransform(c0[row], c1[row], c2[row])
                        for column in 0..<6 {
                            u[(row * 6 + column) * plane + f * channels + c] = Float(t[column])
                        }
                    }
                }
            }
        }
        return u
    }

    /// `G · (g0, g1, g2)` with Lavin's F(4, 3) `G`.
    @inline(__always)
    private static func gTransform(_ g0: Double, _ g1: Double, _ g2: Double) -> SIMD8<Double> {
        SIMD8(g0 / 4,
              -(g0 + g1 + g2) / 6,
              -(g0 - g1 + g2) / 6,
              g0 / 24 + g1 / 12 + g2 / 6,
              g0 / 24 - g1 / 12 + g2 / 6,
              g2, 0, 0)
    }
}
