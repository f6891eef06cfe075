@testable import Kernels

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
