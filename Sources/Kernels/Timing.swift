import Dispatch

/// Where a convolution's time goes, in seconds: unfolding the input (`im2col`, 0 for
/// pointwise 1×1 convolutions, which multiply the input directly), the OpenBLAS `sgemm`,
/// and the epilogue (bias add + activation; batch norm is folded into the weights at load).
public struct ConvolutionPhases: Sendable, Hashable {
    public var im2col: Double = 0
    public var gemm: Double = 0
    public var epilogue: Double = 0

    public init(im2col: Double = 0, gemm: Double = 0, epilogue: Double = 0) {
        self.im2col = im2col
        self.gemm = gemm
        self.epilogue = epilogue
    }

    public var total: Double { im2col + gemm + epilogue }

    package static func += (sum: inout ConvolutionPhases, phases: ConvolutionPhases) {
        sum.im2col += phases.im2col
        sum.gemm += phases.gemm
        sum.epilogue += phases.epilogue
    }

    /// Each phase's mean over the workers that spent any time (`spent[w]`: worker w's sums), for
    /// work whose phases each worker ran one after another (the banded Winograd layers).
    package static func mean(ofWorkers spent: UnsafeBufferPointer<ConvolutionPhases>) -> ConvolutionPhases {
        var total = ConvolutionPhases()
        for phases in spent { total += phases }
        let workers = Double(max(1, spent.count { $0.total > 0 }))
        return ConvolutionPhases(im2col: total.im2col / workers, gemm: total.gemm / workers, epilogue: total.epilogue / workers)
    }
}

/// Monotonic clock for the profiler (CLOCK_MONOTONIC on Linux, mach time on macOS).
package enum ProfileClock {
    @inline(__always)
    package static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    @inline(__always)
    package static func seconds(from start: UInt64, to end: UInt64) -> Double { Double(end &- start) / 1e9 }
}

/// Lap timer for a convolution's phases. A nil `PhaseTimer?` reads no clock at all, so the
/// normal `forward` path pays one nil check per phase and nothing else.
package struct PhaseTimer {
    package var phases = ConvolutionPhases()
    private var mark = ProfileClock.now()

    package init() {}

    /// Adds the time since the previous lap (or the timer's creation) to `phase`.
    @inline(__always)
    package mutating func lap(_ phase: WritableKeyPath<ConvolutionPhases, Double>) {
        let now = ProfileClock.now()
        phases[keyPath: phase] += ProfileClock.seconds(from: mark, to: now)
        mark = now
    }

    /// Splits the time since the previous lap between two phases that ran interleaved on the
    /// workers (a GEMM whose workers each ran the epilogue on their part): `seconds`, at most
    /// the whole lap, goes to `second` and the rest to `first`.
    @inline(__always)
    package mutating func lap(_ first: WritableKeyPath<ConvolutionPhases, Double>,
                              _ second: WritableKeyPath<ConvolutionPhases, Double>, secondSeconds seconds: Double) {
        let now = ProfileClock.now()
        let elapsed = ProfileClock.seconds(from: mark, to: now)
        let share = min(max(seconds, 0), elapsed)
        phases[keyPath: first] += elapsed - share
        phases[keyPath: second] += share
        mark = now
    }

    /// Splits the time since the previous lap among three phases that ran interleaved on the
    /// workers (`Im2colBands`: each worker unfolds, multiplies and finishes its own bands): the
    /// two `shares` (workers' mean seconds, at most the whole lap together) go to their phases
    /// and the rest to `main`.
    @inline(__always)
    package mutating func lap(_ main: WritableKeyPath<ConvolutionPhases, Double>,
                              shares first: (WritableKeyPath<ConvolutionPhases, Double>, Double),
                              _ second: (WritableKeyPath<ConvolutionPhases, Double>, Double)) {
        let now = ProfileClock.now()
        let elapsed = ProfileClock.seconds(from: mark, to: now)
        let a = min(max(first.1, 0), elapsed)
        let b = min(max(second.1, 0), elapsed - a)
        phases[keyPath: first.0] += a
        phases[keyPath: second.0] += b
        phases[keyPath: main] += elapsed - a - b
        mark = now
    }
}

