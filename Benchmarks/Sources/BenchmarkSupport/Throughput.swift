import Benchmark

/// Throughput metrics the suites report beside package-benchmark's wall clock.
///
/// package-benchmark stores every sample as an integer, so each rate uses a unit that keeps
/// three or more significant digits at the sizes measured here (its built-in
/// `Throughput (# / s)` is iterations per second rounded to an integer: 1 for yolov3).
/// All are "larger is better" and never rescaled (`units` `.count` in `configuration`).
public enum Throughput {
    /// Floating-point operations per microsecond, darknet's count (`2·k²·C_in·filters·H_out·W_out`
    /// per convolution, the BFLOPs column of `darknet-swift summary`).
    public static let megaflops = rate("MFLOPS")
    /// Bytes read plus bytes written per microsecond (memory-bound layers).
    public static let megabytesPerSecond = rate("MB/s")
    /// Source-image pixels per microsecond.
    public static let megapixelsPerSecond = rate("Mpixels/s")
    /// Candidate boxes per second.
    public static let boxesPerSecond = rate("boxes/s")
    /// Whole images per minute (images/s would round yolov3's 1 to 2 images/s to an integer).
    public static let imagesPerMinute = rate("images/min")

    static func rate(_ name: String) -> BenchmarkMetric {
        .custom(name, polarity: .prefersLarger, useScalingFactor: false)
    }

    /// `amount / duration` in units of `amount` per `per` (e.g. `.microseconds(1)` for MFLOPS
    /// from FLOPs), rounded to an integer; 0 for an empty duration.
    public static func value(_ amount: Double, in duration: Duration, per: Duration) -> Int {
        let seconds = duration.seconds
        guard seconds > 0 else { return 0 }
        return Int((amount / seconds * per.seconds).rounded())
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    public var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) * 1e-18
    }
}

/// A short configuration: at most `maxIterations` measured runs or `seconds` of wall clock,
/// whichever comes first, after `warmup` runs; wall clock plus `rates`, never rescaled.
public func shortConfiguration(
    rates: [BenchmarkMetric], seconds: Int = 2, maxIterations: Int = 50, warmup: Int = 2,
    extra: [BenchmarkMetric] = []
) -> Benchmark.Configuration {
    Benchmark.Configuration(
        metrics: [.wallClock] + rates + extra,
        units: Dictionary(uniqueKeysWithValues: rates.map { ($0, BenchmarkUnits.count) }),
        warmupIterations: warmup,
        maxDuration: .seconds(seconds),
        maxIterations: maxIterations
    )
}
