@testable import Kernels
import XCTest

extension Blocking {
    /// Winograd layers in bands from one tile row on, bands of at most `rows` tile rows: the
    /// banded path forced on the tests' small shapes.
    static func bands(of rows: Int) -> Blocking {
        var blocking = Blocking()
        (blocking.winogradBandedMinimumTileRows, blocking.winogradBandTileRows) = (1, rows)
        return blocking
    }

    /// Winograd layers never in bands: every grid in passes whose phases are each shared out.
    static var passesOnly: Blocking {
        var blocking = Blocking()
        blocking.winogradBandedMinimumTileRows = .max
        return blocking
    }
}

/// Bands cut a layer's products by tile rows, passes by the whole grid. Whether an element of C
/// keeps its bits however its call is cut is up to OpenBLAS's kernel (GEMM.swift): so with the
/// AVX-512 cores' (`SkylakeX`, `Cooperlake`), not with `Haswell`'s, `Zen`'s or `Prescott`'s,
/// where bands and passes differ by rounding. What holds on every kernel: a band's bits do not
/// depend on how many workers run it.
enum BandBits {
    /// True on the cores whose kernel ignores the cut.
    static var kernelIgnoresTheCut: Bool {
        ["SKYLAKEX", "COOPERLAKE", "SAPPHIRERAPIDS"].contains(GEMM.coreName.uppercased())
    }

    /// `banded` has `passes`'s bits where the kernel ignores the cut, else each element is within
    /// 1e-5 × (the largest |output| + 1) of it: rounding, far below an indexing mistake's error.
    static func check(_ banded: [Float], against passes: [Float], _ message: @autoclosure () -> String,
                      file: StaticString = #filePath, line: UInt = #line) {
        if kernelIgnoresTheCut {
            XCTAssertEqual(banded.map(\.bitPattern), passes.map(\.bitPattern), message(), file: file, line: line)
        } else {
            XCTAssertEqual(banded.count, passes.count, message(), file: file, line: line)
            let scale = (passes.map(abs).max() ?? 0) + 1
            let worst = zip(banded, passes).map { abs($0 - $1) }.max() ?? 0
            XCTAssertLessThanOrEqual(worst, 1e-5 * scale, "\(message()) (core \(GEMM.coreName): within rounding)", file: file, line: line)
        }
    }
}
