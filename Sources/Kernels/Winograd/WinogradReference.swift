/// Lavin & Gray's F(4×4, 3×3) matrices written out, and the transforms of one tile computed
/// from them by plain matrix products in Double: the references the vectorised transforms
/// (`Winograd.transformWeights`, `transformInput`, `transformOutput`, the streamed
/// `transformPanels`) are tested against.
package enum WinogradReference {
    /// `Bᵀ` (6×6): `V = Bᵀ d B` for a 6×6 input tile `d`.
    package static let bt: [[Double]] = [
        [4, 0, -5, 0, 1, 0],
        [0, -4, -4, 1, 1, 0],
        [0, 4, -4, -1, 1, 0],
        [0, -2, -1, 2, 1, 0],
        [0, 2, -1, -2, 1, 0],
        [0, 4, 0, -5, 0, 1],
    ]
    /// `G` (6×3): `U = G g Gᵀ` for a 3×3 kernel `g`.
    package static let g: [[Double]] = [
        [1.0 / 4, 0, 0],
        [-1.0 / 6, -1.0 / 6, -1.0 / 6],
        [-1.0 / 6, 1.0 / 6, -1.0 / 6],
        [1.0 / 24, 1.0 / 12, 1.0 / 6],
        [1.0 / 24, -1.0 / 12, 1.0 / 6],
        [0, 0, 1],
    ]
    /// `Aᵀ` (4×6): `Y = Aᵀ M A` for a 6×6 tile of products `M`.
    package static let at: [[Double]] = [
        [1, 1, 1, 1, 1, 0],
        [0, 1, -1, 2, -2, 0],
        [0, 1, 1, 4, 4, 0],
        [0, 1, -1, 8, -8, 1],
    ]

    /// `X · Yᵀ`-style helper: `a` (r×n) times `b` (n×c).
    static func product(_ a: [[Double]], _ b: [[Double]]) -> [[Double]] {
        a.map { row in (0..<b[0].count).map { j in zip(row, b).reduce(0) { $0 + $1.0 * $1.1[j] } } }
    }

    static func transposed(_ a: [[Double]]) -> [[Double]] {
        (0..<a[0].count).map { j in a.map { $0[j] } }
    }

    /// `G g Gᵀ`, row-major 6×6, from a row-major 3×3 kernel.
    package static func weights(_ kernel: [Float]) -> [Double] {
        let k = (0..<3).map { r in (0..<3).map { Double(kernel[r * 3 + $0]) } }
        return product(product(g, k), transposed(g)).flatMap { $0 }
    }

    /// `Bᵀ d B`, row-major 6×6, from a row-major 6×6 input tile.
    package static func input(_ tile: [Float]) -> [Double] {
        let d = (0..<6).map { r in (0..<6).map { Double(tile[r * 6 + $0]) } }
        return product(product(bt, d), transposed(bt)).flatMap { $0 }
    }

    /// `Aᵀ M A`, row-major 4×4, from a row-major 6×6 tile of products.
    package static func output(_ m: [Float]) -> [Double] {
        let tile = (0..<6).map { r in (0..<6).map { Double(m[r * 6 + $0]) } }
        return product(product(at, tile), transposed(at)).flatMap { $0 }
    }
}
