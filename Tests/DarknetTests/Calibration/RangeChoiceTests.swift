@testable import Darknet
import XCTest

/// `RangeChoice` on histograms whose right range is known: the percentile's cut edges, and
/// the entropy method keeping a range that clipping would damage (uniform values) while
/// clipping a lone far outlier.
final class RangeChoiceTests: XCTestCase {
    /// A histogram of `counts` (one per bin, zeros after) over [0, 2048).
    func histogram(_ counts: (Int) -> Int) -> ValueHistogram {
        var histogram = ValueHistogram(smallest: 0, largest: Float(ValueHistogram.binCount))
        var values: [Float] = []
        for bin in 0..<ValueHistogram.binCount {
            values += [Float](repeating: Float(bin) + 0.5, count: counts(bin))
        }
        values.withUnsafeBufferPointer { histogram.add($0) }
        return histogram
    }

    func testPercentileCutsEachTail() {
        // 10,000 values in bins 0..<1000 (10 a bin), and 1 in bin 2000.
        let h = histogram { $0 < 1000 ? 10 : $0 == 2000 ? 1 : 0 }
        let kept = RangeChoice.percentile(h, 99.99)
        XCTAssertEqual(kept.low, 0)
        XCTAssertEqual(kept.high, 1000, "the lone value at 2000 is the top 0.01%: left out")
        XCTAssertEqual(RangeChoice.percentile(h, 99.999).high, 2001, "below 0.01%: kept")
    }

    func testEntropyKeepsAUniformRange() {
        // Evenly spread values: clipping any of them changes the distribution most.
        let h = histogram { _ in 5 }
        XCTAssertEqual(RangeChoice.entropy(h, percentile: 99.99).high, 2048)
    }

    func testEntropyClipsALoneOutlierButKeepsTheBulk() {
        // A bulk that thins out to bin 800 and one value at bin 2040.
        let h = histogram { $0 < 800 ? 800 - $0 : $0 == 2040 ? 1 : 0 }
        let high = RangeChoice.entropy(h, percentile: 99.99).high
        XCTAssertLessThan(high, 2040, "the outlier is clipped")
        XCTAssertGreaterThanOrEqual(high, 600, "the bulk is kept: \(high)")
    }
}
