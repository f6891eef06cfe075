// Whole models at 416×416 on a 1280×720 picture generated in memory:
// - "forward": `Network.forward` alone on the letterboxed picture (what tools/bench-peers
//   compares with other runtimes);
// - "detect": `Detector.detect`, as `darknet-swift detect` runs it: letterbox, forward,
//   decoding, NMS and thresholding.
// yolov3-tiny uses the real weights when they have been fetched, else synthetic ones (the tag
// says which); yolov3 always uses synthetic weights, and so has "forward" only: its synthetic
// outputs are saturated (8 339 candidates with 149 180 class scores above 0.5 on the
// generated picture), so "detect" would time a pathological NMS, not a detection.
// The cfgs come from `tools/fetch` (cfg/yolov3-tiny.cfg, cfg/yolov3.cfg under
// DataFiles.directory). Reports images/min and the effective MFLOPS (darknet's FLOP count of
// the whole network over the whole measured time).
import Benchmark
import BenchmarkSupport
import Darknet
import Imaging

let benchmarks: @Sendable () -> Void = {
    let tiny = Model(name: "yolov3-tiny", cfg: "cfg/yolov3-tiny.cfg", weights: DataFiles.optional("yolov3-tiny.weights"))
    let yolov3 = Model(name: "yolov3", cfg: "cfg/yolov3.cfg", weights: nil)
    for (model, seconds, iterations, detect) in [(tiny, 2, 40, true), (yolov3, 6, 10, false)] {
        let configuration = model.configuration(seconds: seconds, maxIterations: iterations)
        Benchmark("\(model.name) forward at 416", configuration: configuration) {
            (benchmark: Benchmark, setup: Model.Loaded) in
            let start = ContinuousClock.now
            let outputs = try setup.network.forward(setup.input)
            let elapsed = start.duration(to: .now)
            benchmark.stopMeasurement()
            blackHole(outputs)
            record(benchmark, elapsed, setup)
        } setup: {
            try model.load()
        }
        guard detect else { continue }
        Benchmark("\(model.name) detect 1280x720 at 416", configuration: configuration) {
            (benchmark: Benchmark, setup: Model.Loaded) in
            let start = ContinuousClock.now
            let found = try setup.detector.detect(in: setup.photo)
            let elapsed = start.duration(to: .now)
            benchmark.stopMeasurement()
            blackHole(found)
            record(benchmark, elapsed, setup)
        } setup: {
            try model.load()
        }
    }
}

func record(_ benchmark: Benchmark, _ elapsed: Duration, _ setup: Model.Loaded) {
    benchmark.measurement(Throughput.imagesPerMinute, Throughput.value(1, in: elapsed, per: .seconds(60)))
    benchmark.measurement(Throughput.megaflops, Throughput.value(
        setup.detector.model.totalBflops * 1e9, in: elapsed, per: .microseconds(1)))
}

struct Model: Sendable {
    var name: String
    /// Relative to DataFiles.directory.
    var cfg: String
    /// Full path of real weights, nil for synthetic ones (seed 1).
    var weights: String?

    struct Loaded {
        /// Runs the `forward` benchmark (raw network, no pre- or post-processing).
        var network: Network
        /// Runs the `detect` benchmark; shares the weights with `network`.
        var detector: Detector
        var photo: Image
        /// `photo` letterboxed to 416×416, CHW.
        var input: [Float]
    }

    func configuration(seconds: Int, maxIterations: Int) -> Benchmark.Configuration {
        var configuration = shortConfiguration(
            rates: [Throughput.imagesPerMinute, Throughput.megaflops], seconds: seconds,
            maxIterations: maxIterations, warmup: 1, extra: [.peakMemoryResident])
        configuration.tags = ["weights": weights == nil ? "synthetic" : "real"]
        return configuration
    }

    func load() throws -> Loaded {
        let model = try ModelDescription(contentsOf: try DataFiles.required(cfg), width: 416, height: 416)
        let parameters = if let weights {
            try WeightsReader.read(contentsOf: weights, for: model)
        } else {
            try syntheticWeights(model: model)
        }
        let prepared = try PreparedModel(model: model, weights: parameters)
        let detector = try Detector(prepared)
        let photo = generatedPhoto(width: 1280, height: 720)
        return Loaded(network: try Network(prepared), detector: detector,
                      photo: photo, input: detector.prepare(photo).data)
    }
}
