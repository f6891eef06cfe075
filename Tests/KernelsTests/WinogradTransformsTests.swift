@testable import Kernels
import TestSupport
import XCTest

/// Each Winograd transform against Lavin & Gray's matrices written out (`WinogradReference`),
/// and the fast variants against the slow ones.
final class WinogradTransformsTests: XCTestCase {
    /// `U = G g Gᵀ` four kernels at a time gives the bits of one at a time (shapes leaving 1–3
    /// kernels over, 1 and 2 workers), the matrices' values, and packed, each position as
    /// `PackedGEMM.packWeights` packs the plain plane.
    func testWeightTransform() {
        var generator = SplitMix64(state: 11)
        for (filters, channels) in [(1, 3), (3, 5), (7, 37), (64, 33), (130, 31)] {
            let weights = (0..<(filters * channels * 9)).map { _ in generator.uniform(-2, 2) }
            let one = weights.withUnsafeBufferPointer {
                Winograd.transformWeights($0, filters: filters, channels: channels, packed: nil, threads: 1, lanes: 1)
            }
            let plane = filters * channels
            for kernel in 0..<plane {
                let expected = WinogradReference.weights(Array(weights[(kernel * 9)..<(kernel * 9 + 9)]))
                for position in 0..<36 {
                    XCTAssertEqual(Double(one[position * plane + kernel]), expected[position], accuracy: 1e-6,
                                   "\(filters)×\(channels) kernel \(kernel) position \(position)")
                }
            }
            for threads in [1, 2] {
                let four = weights.withUnsafeBufferPointer {
                    Winograd.transformWeights($0, filters: filters, channels: channels, packed: nil, threads: threads)
                }
                XCTAssertEqual(four.map(\.bitPattern), one.map(\.bitPattern), "\(filters)×\(channels), \(threads) workers")
                guard let kernel = PackedGEMM.kernel else { continue }
                let packed = weights.withUnsafeBufferPointer {
                    Winograd.transformWeights($0, filters: filters, channels: channels, packed: kernel, threads: threads)
                }
                var expected = one
                for position in 0..<36 {
                    expected.withUnsafeMutableBufferPointer { e in
                        one.withUnsafeBufferPointer { o in
                            PackedGEMM.packWeights(kernel, o.baseAddress! + position * plane, rows: filters, k: channels,
                                                   ldw: channels, into: e.baseAddress! + position * plane)
                        }
                    }
                }
                XCTAssertEqual(packed.map(\.bitPattern), expected.map(\.bitPattern), "\(filters)×\(channels) packed")
            }
        }
    }

    /// `V = Bᵀ d B` of every tile of a plane (padding, partial tiles, rows wide enough for the
    /// 8-tile vector paths, a pass starting at a later tile row) against the matrices.
    func testInputTransform() {
        var generator = SplitMix64(state: 13)
        for (height, width, pad, firstTileRow) in [(5, 7, 1, 0), (13, 13, 1, 0), (9, 45, 2, 1), (12, 70, 0, 1), (1, 1, 1, 0)] {
            let plane = (0..<(height * width)).map { _ in generator.uniform(-1, 1) }
            let (outHeight, outWidth) = (height + 2 * pad - 2, width + 2 * pad - 2)
            let grid = Winograd.tiles(outHeight: outHeight, outWidth: outWidth)
            let g = Winograd.PassGeometry(height: height, width: width, pad: pad, outHeight: outHeight, outWidth: outWidth,
                                          firstTileRow: firstTileRow, tileRows: grid.rows - firstTileRow,
                                          tileColumns: grid.columns)
            let tiles = g.tileCount
            var v = [Float](repeating: .nan, count: 36 * tiles)
            var rows = [Float](repeating: .nan, count: Winograd.scratchCount(tileRows: g.tileRows, tileColumns: g.tileColumns,
                                                                                images: 1, outWidth: outWidth, packedChannels: 0))
            plane.withUnsafeBufferPointer { p in
                Winograd.transformInput(p.baseAddress!, g, into: &v, positionStride: tiles, rows: &rows)
            }
            for t in 0..<tiles {
                let (ty, tx) = ((firstTileRow + t / g.tileColumns) * 4, t % g.tileColumns * 4)
                let d = (0..<36).map { index -> Float in
                    let (y, x) = (ty + index / 6 - pad, tx + index % 6 - pad)
                    return y >= 0 && y < height && x >= 0 && x < width ? plane[y * width + x] : 0
                }
                let expected = WinogradReference.input(d)
                for position in 0..<36 {
                    XCTAssertEqual(Double(v[position * tiles + t]), expected[position], accuracy: 1e-5,
                                   "\(height)×\(width) pad \(pad) tile \(t) position \(position)")
                }
            }
        }
    }

    /// `Y = Aᵀ M A` of every tile, merged into rows and cut at the output's edge, against the matrices.
    func testOutputTransform() {
        var generator = SplitMix64(state: 17)
        for (outHeight, outWidth) in [(5, 7), (13, 13), (8, 70), (1, 1)] {
            let grid = Winograd.tiles(outHeight: outHeight, outWidth: outWidth)
            let g = Winograd.PassGeometry(height: outHeight, width: outWidth, pad: 1, outHeight: outHeight, outWidth: outWidth,
                                          firstTileRow: 0, tileRows: grid.rows, tileColumns: grid.columns)
            let tiles = g.tileCount
            let m = (0..<(36 * tiles)).map { _ in generator.uniform(-1, 1) }
            var output = [Float](repeating: .nan, count: outHeight * outWidth)
            var rows = [Float](repeating: .nan, count: Winograd.scratchCount(tileRows: g.tileRows, tileColumns: g.tileColumns,
                                                                                images: 1, outWidth: outWidth, packedChannels: 0))
            let bias: [Float] = [0]
            m.withUnsafeBufferPointer { mp in
                output.withUnsafeMutableBufferPointer { o in
                    bias.withUnsafeBufferPointer { b in
                        Winograd.transformOutput(mp.baseAddress!, g, positionStride: tiles, images: 1, filter: 0,
                                                 output: MutableTensorView(o.baseAddress!, channels: 1, height: outHeight,
                                                                           width: outWidth),
                                                 epilogue: Epilogue(biases: b.baseAddress!, activation: .linear),
                                                 pooled: nil, rows: &rows)
                    }
                }
            }
            for t in 0..<tiles {
                let y = WinogradReference.output((0..<36).map { m[$0 * tiles + t] })
                for r in 0..<4 {
                    for s in 0..<4 {
                        let (oy, ox) = (t / g.tileColumns * 4 + r, t % g.tileColumns * 4 + s)
                        guard oy < outHeight, ox < outWidth else { continue }
                        XCTAssertEqual(Double(output[oy * outWidth + ox]), y[r * 4 + s], accuracy: 1e-4,
                                       "\(outHeight)×\(outWidth) tile \(t) (\(r), \(s))")
                    }
                }
            }
        }
    }

    /// darknet's `filters × C × 3 × 3` → `filters/4 × 9 × C × 4`, and a panel's channel lands
    /// where `PackedGEMM.packWeights` puts it (every kernel packs whole panels of 4 filters).
    func testPanelOrder() throws {
        let (filters, channels) = (8, 3)
        let weights = (0..<(filters * channels * 9)).map(Float.init)
        var panels = weights
        Winograd.reorderPanels(&panels, filters: filters, channels: channels, threads: 2)
        for f in 0..<filters {
            for c in 0..<channels {
                for t in 0..<9 { XCTAssertEqual(panels[((f / 4 * 9 + t) * channels + c) * 4 + f % 4], weights[(f * channels + c) * 9 + t]) }
            }
        }
        let kernel = try PackedKernelSupport.kernel()
        for (rows, k) in [(8, 3), (12, 515), (16, 1030)] {
            let plain = (0..<(rows * k)).map(Float.init)
            var packed = [Float](repeating: .nan, count: rows * k)
            PackedGEMM.packWeights(kernel, plain, rows: rows, k: k, ldw: k, into: &packed)
            for r in 0..<rows {
                for c in 0..<k {
                    let at = Winograd.panelOffset(row: r / 4 * 4, channel: c, rows: rows, channels: k) + r % 4
                    XCTAssertEqual(packed[at], plain[r * k + c], "\(rows)×\(k) row \(r) channel \(c)")
                }
            }
        }
    }

    /// The streamed transform (in Float, during the pass) gives the packed transform at load (in
    /// Double) to rounding: a block of 16 filters over channels past one K block.
    func testStreamedPanelsAreTheTransformAtLoad() throws {
        let kernel = try PackedKernelSupport.kernel()
        var generator = SplitMix64(state: 23)
        let (filters, channels) = (16, 515)
        let weights = (0..<(filters * channels * 9)).map { _ in generator.uniform(-1, 1) }
        let atLoad = weights.withUnsafeBufferPointer {
            Winograd.transformWeights($0, filters: filters, channels: channels, packed: kernel, threads: 1)
        }
        var panels = weights
        Winograd.reorderPanels(&panels, filters: filters, channels: channels, threads: 1)
        let stride = Winograd.streamedPackedPositionStride(count: filters, channels: channels)
        var streamed = [Float](repeating: .nan, count: 36 * stride)
        panels.withUnsafeBufferPointer { p in
            Winograd.transformPanels(p.baseAddress!, channels: channels, first: 0, count: filters, into: &streamed)
        }
        for position in 0..<36 {
            for i in 0..<(filters * channels) {
                XCTAssertEqual(streamed[position * stride + i], atLoad[position * filters * channels + i], accuracy: 1e-5,
                               "position \(position) element \(i)")
            }
        }
    }
}
