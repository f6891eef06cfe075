@testable import Kernels
import TestSupport
import XCTest

/// `Im2col.unfoldPacked` against the reference unfold packed by OpenBLAS's own copy routine
/// (`PackedGEMM.packColumns`), bit for bit: whole panels and every narrower tail panel, two K
/// blocks, a band of output rows, stride 2, padding and dilation; for every core whose copy
/// routine this OpenBLAS has and this CPU runs (16 and 8 columns a panel on an AVX-512 CPU).
final class Im2colPackedTests: XCTestCase {
    struct Case {
        var channels, height, width, size, stride, pad: Int
        var strideY: Int? = nil
        var dilation = 1
        /// Output rows unfolded (nil: all).
        var rows: Range<Int>? = nil
    }

    static let cases: [Case] = [
        Case(channels: 8, height: 9, width: 11, size: 3, stride: 1, pad: 1),            // 99 columns: 6 panels of 16, then 2 and 1
        Case(channels: 32, height: 20, width: 26, size: 3, stride: 2, pad: 1),          // yolov7-tiny's layer 1, small: 130 columns
        Case(channels: 64, height: 9, width: 13, size: 3, stride: 2, pad: 1),           // k = 576: two K blocks
        Case(channels: 3, height: 16, width: 16, size: 3, stride: 1, pad: 1),           // 256 columns: whole panels only
        Case(channels: 16, height: 30, width: 15, size: 3, stride: 2, pad: 1, rows: 4..<9), // a band, 40 columns
        Case(channels: 4, height: 12, width: 7, size: 3, stride: 2, pad: 3, dilation: 3),
        Case(channels: 6, height: 9, width: 10, size: 3, stride: 2, pad: 1, strideY: 1, rows: 2..<5),
        Case(channels: 2, height: 1, width: 1, size: 3, stride: 1, pad: 1),             // one column
    ]

    func testMatchesTheReferencePackedByOpenBLAS() throws {
        // Every core this OpenBLAS has a copy routine for and this CPU can run.
        let cpuRung = BLASCore.rung(ofFlags: BLASCore.flags(fromCPUInfo: BLASCore.readCPUInfo()))
        let kernels = PackedGEMM.unrolls.keys.sorted().compactMap { core -> PackedGEMM.Kernel? in
            guard let rung = BLASCore.rung(ofCore: core), rung <= cpuRung else { return nil }
            return PackedGEMM.resolve(core: core)
        }
        guard !kernels.isEmpty else { throw Skip.because("no per-core copy routine this CPU can run") }
        var generator = SplitMix64(state: 11)
        for kernel in kernels {
            for c in Self.cases {
                let strideY = c.strideY ?? c.stride
                let extent = c.dilation * (c.size - 1) + 1
                let outHeight = (c.height + 2 * c.pad - extent) / strideY + 1
                let outWidth = (c.width + 2 * c.pad - extent) / c.stride + 1
                let rows = c.rows ?? 0..<outHeight
                let k = c.channels * c.size * c.size, columns = rows.count * outWidth
                let image = (0..<(c.channels * c.height * c.width)).map { _ in generator.uniform(-1, 1) }
                // The reference: every output row unfolded, the band's columns cut out and packed by OpenBLAS.
                var whole = [Float](repeating: .nan, count: k * outHeight * outWidth)
                Im2col.unfoldReference(image, channels: c.channels, height: c.height, width: c.width, size: c.size,
                                       stride: c.stride, pad: c.pad, strideY: strideY, dilation: c.dilation, into: &whole)
                var band = [Float](repeating: .nan, count: k * columns)
                for r in 0..<k {
                    for i in 0..<columns { band[r * columns + i] = whole[r * outHeight * outWidth + rows.lowerBound * outWidth + i] }
                }
                var expected = [Float](repeating: .nan, count: k * columns)
                PackedGEMM.packColumns(kernel, band, columns: columns, k: k, ldx: columns, into: &expected)

                var got = [Float](repeating: .nan, count: k * columns)
                var scratch = [Float](repeating: .nan, count: Im2col.packedRowGroup * columns)
                image.withUnsafeBufferPointer { i in
                    Im2col.unfoldPacked(i.baseAddress!, channels: c.channels, height: c.height, width: c.width, size: c.size,
                                        stride: c.stride, pad: c.pad, strideY: strideY, dilation: c.dilation, outputRows: rows,
                                        channelStride: c.height * c.width, unroll: kernel.unrollM, rows: &scratch, into: &got)
                }
                XCTAssertFalse(expected.contains { $0.isNaN }, "OpenBLAS packed every element: \(c)")
                XCTAssertEqual(got.map(\.bitPattern), expected.map(\.bitPattern), "\(kernel.core), \(c)")
            }
        }
    }

    /// The panel widths OpenBLAS's copy routine cuts a tail into: powers of two, largest first.
    func testPanelWidths() {
        func widths(_ columns: Int, _ unroll: Int) -> [Int] {
            var result: [Int] = [], c0 = 0
            while c0 < columns {
                result.append(PackedGEMM.panelWidth(remaining: columns - c0, unroll: unroll))
                c0 += result.last!
            }
            return result
        }
        XCTAssertEqual(widths(47, 16), [16, 16, 8, 4, 2, 1])
        XCTAssertEqual(widths(47, 8), [8, 8, 8, 8, 8, 4, 2, 1])
        XCTAssertEqual(widths(32, 16), [16, 16])
        XCTAssertEqual(widths(3, 16), [2, 1])
    }
}
