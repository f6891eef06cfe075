import ArgumentParser
import CommandSupport
import Darknet
import Foundation

struct Benchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Time every layer of a network on the CPU: median and p90 ms, GFLOPS, im2col/GEMM/epilogue split.",
        discussion: """
        Without a weights file, runs on deterministic synthetic weights (--seed) and says so. \
        Each run is one plain forward pass (the end-to-end time, as `detect` runs it) followed \
        by one profiled pass (the layer times). By default it runs until the measured passes \
        add up to 2 s, at least 3 runs. The header's commit is $DARKNET_SWIFT_COMMIT if set, \
        else `git rev-parse --short HEAD` of the source folder the binary was built from, else \
        "unknown". % time is each layer's share of the sum of layer medians.
        """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, json, csv
    }

    enum Sort: String, ExpressibleByArgument, CaseIterable {
        case index, time
    }

    @Argument(help: "Darknet .cfg file.")
    var cfg: String

    @Argument(help: "Darknet .weights file (default: synthetic weights).")
    var weights: String?

    @OptionGroup var size: SizeOption<DetectorSize>

    @Option(help: "Measured runs (default: enough for 2 s, at least 3).")
    var runs: Int?

    @Option(help: "Unmeasured runs first.")
    var warmup: Int = 1

    @OptionGroup var engine: EngineOptions

    @OptionGroup var batch: BatchOption<BatchHelp>

    @Option(help: "Output format: table, json or csv.")
    var format: Format = .table

    @Option(help: "Row order: index (layer order) or time (slowest first).")
    var sort: Sort = .index

    @Flag(help: "Measure this machine's sgemm GFLOPS first and show each layer's percentage of it.")
    var peak = false

    @Option(help: "Also write a bar chart of the layer times to this .svg file.")
    var plot: String?

    @Flag(help: "Overwrite an existing --plot file.")
    var force = false

    @Option(help: "Seed of the synthetic weights (default: 1; only without a weights file).")
    var seed: UInt64?

    @OptionGroup var strict: StrictOption

    func validate() throws {
        if let runs, runs < 1 || runs > 1_000_000 { throw ValidationError("--runs must be ≥ 1, got \(runs)") }
        if warmup < 0 || warmup > 1_000_000 { throw ValidationError("--warmup must be ≥ 0, got \(warmup)") }
        if seed != nil && weights != nil { throw ValidationError("--seed is for synthetic weights; a weights file was given") }
        if force && plot == nil { throw ValidationError("--force only applies to --plot") }
    }

    func run() throws {
        do {
            try benchmark()
        } catch let error as BenchmarkPlot.Error {
            // Measured, then the plot could not be written: an output failure, not a usage error.
            if case .cannotWrite = error { throw fail(error) }
            throw conclude(error)
        } catch {
            throw conclude(error)
        }
    }

    private func benchmark() throws {
        if let plot { try BenchmarkPlot.check(plot, force: force, inputs: [cfg] + (weights.map { [$0] } ?? [])) }
        let batch = batch.batch
        let loader = ModelLoader(cfg: cfg, weights: weights,
                                 options: ModelOptions(size: size.size, strict: strict.strict, threads: engine.threads,
                                                       convolutionAlgorithm: engine.convolutionAlgorithm, gemm: engine.gemm,
                                                       calibration: engine.calibration))
        let model = try loader.model()
        let options = try loader.executionOptions()
        // Read as `detect` reads: each convolution prepared for its method as it is read.
        let prepared: PreparedModel
        let weightsSource: String
        let loadSeconds: Double
        if let weights {
            let start = DispatchTime.now().uptimeNanoseconds
            prepared = try loader.prepared(model, batch: batch)
            loadSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            weightsSource = weights
        } else {
            let seed = self.seed ?? 1
            weightsSource = "synthetic (seed \(seed))"
            let bytes = SyntheticWeights.bytes(for: model, seed: seed)
            let start = DispatchTime.now().uptimeNanoseconds
            prepared = try bytes.withUnsafeBytes {
                try PreparedModel(model: model, weightsBytes: $0, file: "synthetic weights", options: options, batch: batch)
            }
            loadSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        let network = try ModelFiles.namingMemory(of: model, cfg: cfg, batch: batch) { try Network(prepared, batch: batch) }
        let single = batch > 1 ? try Network(prepared) : nil
        let peakGflops = peak ? Machine.measurePeakGflops(threads: options.threads) : nil
        let image = SyntheticWeights.input(model.inputShape)
        let input = Array((0..<batch).map { _ in image }.joined())
        let measured = try BenchmarkResult.measure(network: network, input: input, single: single.map { ($0, image) },
                                                   runs: runs, warmup: warmup)
        var result = BenchmarkResult(machine: .current(options, peakGflops: peakGflops), cfg: cfg, width: model.net.width,
                                     height: model.net.height, weights: weightsSource, warmup: warmup, batch: batch,
                                     rows: measured.rows, endToEnd: measured.endToEnd,
                                     layerSums: measured.layerSums, singleEndToEnd: measured.single,
                                     loadSeconds: loadSeconds, load: measured.load)
        result.precision = options.precision.name
        result.gemm = options.gemm
        result.calibration = engine.calibration
        let rows = sort == .time ? result.rows.sorted { ($0.median, $1.layer.index) > ($1.median, $0.layer.index) } : result.rows
        switch format {
        case .table: try StandardOutput.write(BenchmarkTable.render(result, rows: rows))
        case .json: try StandardOutput.write(BenchmarkJSON.render(result, rows: rows) + "\n")
        case .csv: try StandardOutput.write(BenchmarkCSV.render(result, rows: rows))
        }
        if let plot {
            try BenchmarkPlot.write(BenchmarkPlot.render(result), to: plot, force: force, inputs: [cfg] + (weights.map { [$0] } ?? []))
        }
    }
}

extension Benchmark {
    /// Above 1, `benchmark` also times batch-1 passes, for images per second.
    enum BatchHelp: OptionHelp {
        static let help = "Images per forward pass; above 1, batch-1 passes are timed alongside for images/s."
    }
}
