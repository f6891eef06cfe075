@testable import Kernels
import TestSupport
import XCTest

extension Blocking {
    /// Winograd layers in bands from one tile row on, bands of at most `rows` tile rows: the
    /// banded path forced on the tests' small shapes.
    static func bands(of rows: Int) -> Blocking {
        var blocking = Blocking()
        (blocking.winogradBandedMinimumTileRows, blocking.winogradBandTileRows) = (1, rows)
        return blocking
    }

    /// The ways a Winograd route's layer is cut that each test class checks against the naive
    /// convolution: whole (the default), in tiny passes of tile rows (1 and 3000 floats), and in
    /// bands of 1 and 2 tile rows from one tile row on.
    static var winogradCuts: [Blocking] {
        var cuts = [Blocking()]
        for floats in [1, 3000] {
            var blocking = Blocking()
            blocking.winogradFloats = floats
            cuts.append(blocking)
        }
        return cuts + [.bands(of: 1), .bands(of: 2)]
    }

    /// Winograd layers never in bands: every grid in passes whose phases are each shared out.
    static var passesOnly: Blocking {
        var blocking = Blocking()
        blocking.winogradBandedMinimumTileRows = .max
        return blocking
    }
}

/// Bands cut a layer's products by tile rows, passes by the whole grid: the same bits where
/// OpenBLAS's kernel ignores the cut (`BLASCore.ignoresTheCut`), else the same to rounding. What
/// holds on every kernel: a band's bits do not depend on how many workers run it.
enum BandBits {
    static func check(_ banded: [Float], against passes: [Float], _ message: @autoclosure () -> String,
                      file: StaticString = #filePath, line: UInt = #line) {
        Tolerance.checkBits(banded, passes, exact: BLASCore.ignoresTheCut, message(), file: file, line: line)
    }
}
