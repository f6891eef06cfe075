import Foundation

/// The values one layer's input took over the calibration images, in `binCount` equal bins
/// over `[low, high]` (`low = min(0, smallest)`, `high = max(0, largest)`, found by a first
/// pass). Counts are integers, so the histogram, and every range chosen from it, is the same
/// whatever order the values come in. NaN and infinite values are not counted.
struct ValueHistogram: Sendable {
    static let binCount = 2048

    let low: Float
    let high: Float
    private(set) var counts: [Int]

    init(smallest: Float, largest: Float) {
        low = min(0, smallest)
        high = max(0, largest)
        counts = [Int](repeating: 0, count: Self.binCount)
    }

    /// Bins per unit of value (0 when the range is empty: every value is in bin 0).
    private var binsPerUnit: Float { high > low ? Float(Self.binCount) / (high - low) : 0 }

    mutating func add(_ values: UnsafeBufferPointer<Float>) {
        let perUnit = binsPerUnit, last = Self.binCount - 1, low = low
        counts.withUnsafeMutableBufferPointer { counts in
            for x in values where x.isFinite {
                let bin = (x - low) * perUnit
                counts[bin < 0 ? 0 : bin >= Float(last) ? last : Int(bin)] += 1
            }
        }
    }

    /// The value where bin `index` starts (`edge(binCount)` is `high`).
    func edge(_ index: Int) -> Float {
        index >= Self.binCount ? high : low + (high - low) * Float(index) / Float(Self.binCount)
    }

    var total: Int { counts.reduce(0, +) }
}

/// How a layer's quantization range `[low, high]` is chosen from its `ValueHistogram`
/// (`Calibration.RangeMethod`). Both keep 0 inside the range (darknet pads with 0, which must
/// be exact) and are deterministic.
enum RangeChoice {
    /// The range that leaves out `(100 − percentile)`% of the values at each end: `high` is the
    /// upper edge of the bin where the largest `(100 − percentile)`% start, `low` the lower edge
    /// of the bin where the smallest end.
    static func percentile(_ histogram: ValueHistogram, _ percentile: Double) -> (low: Float, high: Float) {
        let lowBin = lowerCut(histogram, percentile)
        let tail = Double(histogram.total) * (1 - percentile / 100)
        var above = 0, highBin = ValueHistogram.binCount
        for bin in stride(from: ValueHistogram.binCount - 1, through: 0, by: -1) {
            above += histogram.counts[bin]
            highBin = bin + 1
            if Double(above) > tail { break }
        }
        return (min(0, histogram.edge(lowBin)), max(0, histogram.edge(highBin)))
    }

    /// The first bin of the range `percentile` keeps at the low end.
    private static func lowerCut(_ histogram: ValueHistogram, _ percentile: Double) -> Int {
        let tail = Double(histogram.total) * (1 - percentile / 100)
        var below = 0
        for bin in 0..<ValueHistogram.binCount {
            below += histogram.counts[bin]
            if Double(below) > tail { return bin }
        }
        return 0
    }

    /// `low` as `percentile` cuts it; `high` the bin edge whose clipped, quantized histogram is
    /// closest to the original in Kullback-Leibler divergence (TensorRT's entropy calibration,
    /// on the bins from `low` up): for each candidate end `e`, P is the histogram from `low` to
    /// `e` with what lies outside (below `low`, above `e`) added to its end bins, Q is the bins
    /// from `low` to `e` alone, without those outliers, merged into `levels` equal groups of
    /// bins, each group's count spread evenly over its non-empty bins, and the smallest
    /// `KL(P‖Q)` wins (the first, on a tie). Q leaves the outliers out, as TensorRT's does, so
    /// that clipping them costs what it loses: built from P, Q would carry them too and the
    /// divergence would favour ranges that clip far too much. A range of fewer than `levels`
    /// bins above `low` keeps the largest value.
    static func entropy(_ histogram: ValueHistogram, percentile: Double, levels: Int = 255) -> (low: Float, high: Float) {
        let lowBin = lowerCut(histogram, percentile)
        let counts = histogram.counts.map(Double.init)
        let below = counts[0..<lowBin].reduce(0, +)
        var best = (divergence: Double.infinity, end: ValueHistogram.binCount)
        var p = [Double](), q = [Double]()
        for end in stride(from: lowBin + levels, through: ValueHistogram.binCount, by: 1) {
            let width = end - lowBin
            let inside = Array(counts[lowBin..<end])
            p = inside
            p[0] += below
            p[width - 1] += counts[end...].reduce(0, +)
            q = [Double](repeating: 0, count: width)
            for group in 0..<levels {
                let range = (group * width / levels)..<((group + 1) * width / levels)
                let sum = range.reduce(0.0) { $0 + inside[$1] }
                let filled = range.filter { inside[$0] > 0 }.count
                guard filled > 0 else { continue }
                for i in range where inside[i] > 0 { q[i] = sum / Double(filled) }
            }
            let divergence = klDivergence(p, q)
            if divergence < best.divergence { best = (divergence, end) }
        }
        return (min(0, histogram.edge(lowBin)), max(0, histogram.edge(best.end)))
    }

    /// `Σ p log(p / q)` of the two normalised, over the bins where `p > 0`. A bin `p` has and
    /// `q` lacks (the outliers P adds to its end bins) counts as if `q` held `smoothing` of the
    /// whole there, as the smoothing of MXNet's and TensorRT's calibrations does, not as
    /// nothing: such ranges then cost what they lose.
    static func klDivergence(_ p: [Double], _ q: [Double], smoothing: Double = 1e-4) -> Double {
        let pTotal = p.reduce(0, +), qTotal = q.reduce(0, +)
        guard pTotal > 0, qTotal > 0 else { return 0 }
        var sum = 0.0
        for i in p.indices where p[i] > 0 {
            let pi = p[i] / pTotal, qi = q[i] > 0 ? q[i] / qTotal : smoothing
            sum += pi * log(pi / qi)
        }
        return sum
    }
}
