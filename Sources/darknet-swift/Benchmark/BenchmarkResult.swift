import Darknet
import Foundation

/// One layer's timings over every profiled run (seconds).
struct BenchmarkRow {
    var layer: Layer
    var median: Double
    var p90: Double
    /// Per-phase medians (each phase's own median over the runs) of a convolution. For a
    /// Winograd layer the `im2col` phase is its input transform and `epilogue` its output transform.
    var phases: ConvolutionPhases?
    /// How a convolution computed (`gemm`, `im2col`, `winograd`); nil for other layers.
    var method: ConvolutionMethod?

    /// darknet's BFLOPs as pjreddie's table prints it (three decimals; convolutions only, in
    /// either dialect: the work `gflops` divides).
    var bflops: Double { (layer.bflops * 1000).rounded() / 1000 }

    /// Achieved GFLOPS (exact FLOPs / median time); 0 for layers without FLOPs.
    var gflops: Double { median > 0 ? layer.bflops / median : 0 }

    /// Key options of the cfg section (`Layer.optionsSummary`): `32 3x3/1 leaky`, `2x2/2`, `2x`,
    /// `layers 85 61`, `from 33`.
    var options: String { layer.optionsSummary }
}

/// What `darknet-swift benchmark` measured: rows in layer order plus end-to-end times.
struct BenchmarkResult {
    var machine: Machine
    var cfg: String
    var width: Int
    var height: Int
    /// `synthetic (seed N)` or the weights file.
    var weights: String
    var isSynthetic: Bool { weights.hasPrefix("synthetic (seed ") }
    var warmup: Int
    /// Images per forward pass (every time is per pass of the whole batch).
    var batch: Int = 1
    /// `f32`, or `int8` with the calibration file (`--precision`).
    var precision = "f32"
    var calibration: String?
    /// The library of the f32 im2col and 1×1 products (`--gemm`).
    var gemm: GEMMLibrary = .openblas
    var rows: [BenchmarkRow]
    /// Seconds of each plain `forward` (one per run).
    var endToEnd: [Double]
    /// Sum of the layer times of each profiled pass (one per run).
    var layerSums: [Double]
    /// With a batch: seconds of each batch-1 `forward`, timed in the same runs.
    var singleEndToEnd: [Double]?
    /// Seconds to read the weights, fold batch norm and prepare each convolution for its method
    /// (the Winograd weight transforms), all in `WeightsReader.read` as `detect` loads them (for
    /// synthetic weights, from bytes already in memory), once, before the runs.
    var loadSeconds: Double = 0
    /// How busy other processes kept the machine during the measured runs (nil without /proc/stat).
    var load: MachineLoad?

    var runs: Int { endToEnd.count }
    var endToEndMedian: Double { Statistics.median(endToEnd) }
    var endToEndP90: Double { Statistics.percentile(endToEnd, 0.9) }
    /// The sum of the layer medians (what the % column divides by). Under load it runs below
    /// the end-to-end median: each layer's median drops that layer's disturbed runs.
    var sumOfLayers: Double { rows.reduce(0) { $0 + $1.median } }
    /// The median over profiled passes of the sum of their layer times: the same statistic as
    /// `endToEndMedian`, so their ratio shows what profiling adds or misses.
    var layerSumMedian: Double { Statistics.median(layerSums) }
    /// Each run's profiled layer sum over its plain pass. Both passes of a run see the same
    /// machine, so the ratio is steadier under load than a ratio of medians.
    var layerSumRatios: [Double] { zip(endToEnd, layerSums).map { $0 > 0 ? $1 / $0 : 0 } }
    /// The median of `layerSumRatios`: within 10% of 1, the layer times account for the pass
    /// (the check the table's `profile` line prints; measured, never asserted in a unit test).
    var layerSumRatioMedian: Double { Statistics.median(layerSumRatios) }
    /// `layerSumRatioMedian` is within 10% of 1.
    var layerSumsAccountForThePass: Bool { abs(layerSumRatioMedian - 1) <= 0.1 }
    var imagesPerSecond: Double { endToEndMedian > 0 ? Double(batch) / endToEndMedian : 0 }

    /// How far the slower passes ran from the fastest: `(p90 − fastest) / fastest` of the
    /// end-to-end passes (0 for one run). Another process only ever slows a pass down, so the
    /// fastest is the nearest to the machine's own speed and the p90 shows the slow tenth.
    var endToEndSpread: Double { Self.spread(endToEnd) }

    /// The bound on `endToEndSpread` above which a run is unsteady: 10%. The changes the
    /// bench log compares are a few percent; when a tenth of the passes ran more than 10%
    /// slower than the fastest, the load alone can move a median by as much, and two such
    /// runs cannot tell such a change from the machine.
    static let unsteadyBound = 0.10

    /// The end-to-end passes vary too much to trust (`endToEndSpread` above `unsteadyBound`).
    var isUnsteady: Bool { endToEndSpread > Self.unsteadyBound }

    /// `(p90 − minimum) / minimum` of `times`; 0 for fewer than two or a minimum of 0.
    static func spread(_ times: [Double]) -> Double {
        guard times.count > 1, let fastest = times.min(), fastest > 0 else { return 0 }
        return (Statistics.percentile(times, 0.9) - fastest) / fastest
    }

    /// Images per second one image at a time (nil without a batch).
    var singleImagesPerSecond: Double? {
        guard let singleEndToEnd else { return nil }
        let median = Statistics.median(singleEndToEnd)
        return median > 0 ? 1 / median : 0
    }
    /// The convolutions' phase medians summed over the layers, and the other layers' medians
    /// summed: where the time goes. The GEMM sum is what the convolutions cost at OpenBLAS's
    /// rate with every unfold, transform and epilogue taken away.
    var phaseTotals: (phases: ConvolutionPhases, otherLayers: Double) {
        var phases = ConvolutionPhases()
        var other = 0.0
        for row in rows {
            if let p = row.phases {
                phases.im2col += p.im2col
                phases.gemm += p.gemm
                phases.epilogue += p.epilogue
            } else {
                other += row.median
            }
        }
        return (phases, other)
    }

    /// The sum of the rows' BFLOPs, as pjreddie's `summary` total.
    var totalBflops: Double { rows.reduce(0) { $0 + $1.bflops } }
    var exactBflops: Double { rows.reduce(0) { $0 + $1.layer.bflops } }
    var effectiveGflops: Double { endToEndMedian > 0 ? exactBflops * Double(batch) / endToEndMedian : 0 }

    /// A row's share of the sum of layer medians, in percent (the column adds up to 100).
    func percent(_ row: BenchmarkRow) -> Double { sumOfLayers > 0 ? 100 * row.median / sumOfLayers : 0 }

    /// A row's GFLOPS as a percentage of the measured sgemm peak (`--peak`).
    func peakPercent(_ row: BenchmarkRow) -> Double? {
        guard let peak = machine.peakGflops, peak > 0 else { return nil }
        return 100 * row.gflops / peak
    }

    /// Runs `warmup` unmeasured pairs, then pairs of one plain `forward` (end-to-end time, as
    /// `detect` runs it) and one `profile` (layer times), alternating so drift hits both alike;
    /// `runs` pairs, or when nil at least 3 and until the measured passes add up to 2 s.
    /// With `single` (a batch-1 network and one image) each run also times one batch-1 pass.
    /// The machine's load is read around the measured runs (`MachineLoad`).
    static func measure(network: Network, input: [Float], single: (Network, [Float])? = nil, runs: Int?, warmup: Int) throws
        -> (rows: [BenchmarkRow], endToEnd: [Double], layerSums: [Double], single: [Double]?, load: MachineLoad?) {
        for _ in 0..<warmup {
            try network.forward(input)
            _ = try network.profile(input)
            if let (singleNetwork, image) = single { try singleNetwork.forward(image) }
        }
        var singleTimes: [Double] = []
        var endToEnd: [Double] = []
        var profiles: [[LayerTime]] = []  // layer times only: keeping outputs would grow with runs
        var measured = 0.0
        let before = MachineLoad.sample()
        while true {
            if let runs, endToEnd.count >= runs { break }
            if runs == nil, endToEnd.count >= 3, measured >= 2 || endToEnd.count >= 10_000 { break }
            let start = DispatchTime.now().uptimeNanoseconds
            try network.forward(input)
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let profile = try network.profile(input)
            endToEnd.append(seconds)
            profiles.append(profile.layers)
            measured += seconds + profile.seconds
            if let (singleNetwork, image) = single {
                let start = DispatchTime.now().uptimeNanoseconds
                try singleNetwork.forward(image)
                singleTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            }
        }
        let load = before.flatMap { start in
            MachineLoad.sample().flatMap { MachineLoad.between(start, $0, ticksPerSecond: MachineLoad.ticksPerSecond) }
        }
        let methods = network.methods
        let rows = network.model.layers.map { layer -> BenchmarkRow in
            let times = profiles.map { $0[layer.index] }
            var phases: ConvolutionPhases?
            if case .convolutional = layer.kind {
                let split = times.compactMap(\.phases)
                phases = ConvolutionPhases(im2col: Statistics.median(split.map(\.im2col)),
                                           gemm: Statistics.median(split.map(\.gemm)),
                                           epilogue: Statistics.median(split.map(\.epilogue)))
            }
            let seconds = times.map(\.seconds)
            return BenchmarkRow(layer: layer, median: Statistics.median(seconds), p90: Statistics.percentile(seconds, 0.9),
                                phases: phases, method: methods[layer.index])
        }
        let layerSums = profiles.map { $0.reduce(0) { $0 + $1.seconds } }
        return (rows, endToEnd, layerSums, single == nil ? nil : singleTimes, load)
    }
}
