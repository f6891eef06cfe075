// Image preparation on a 1280×720 picture generated in memory (no photo needed): darknet's
// letterbox to 416×416, and JPEG decoding of that picture encoded at quality 90. Both report
// source Mpixels/s.
import Benchmark
import BenchmarkSupport
import Foundation
import Imaging

let photoWidth = 1280, photoHeight = 720
let megapixels = Double(photoWidth * photoHeight)

let benchmarks: @Sendable () -> Void = {
    let rates = [Throughput.megapixelsPerSecond]

    Benchmark("letterbox 1280x720 -> 416x416", configuration: shortConfiguration(rates: rates)) {
        (benchmark: Benchmark, photo: Image) in
        let start = ContinuousClock.now
        let boxed = photo.letterboxed(width: 416, height: 416)
        let elapsed = start.duration(to: .now)
        benchmark.stopMeasurement()
        blackHole(boxed)
        benchmark.measurement(Throughput.megapixelsPerSecond,
                              Throughput.value(megapixels, in: elapsed, per: .microseconds(1)))
    } setup: {
        generatedPhoto(width: photoWidth, height: photoHeight)
    }

    Benchmark("JPEG decode 1280x720 (quality 90)", configuration: shortConfiguration(rates: rates)) {
        (benchmark: Benchmark, jpeg: [UInt8]) in
        let start = ContinuousClock.now
        let image = try Image(decoding: jpeg, name: "generated.jpg")
        let elapsed = start.duration(to: .now)
        benchmark.stopMeasurement()
        blackHole(image)
        benchmark.measurement(Throughput.megapixelsPerSecond,
                              Throughput.value(megapixels, in: elapsed, per: .microseconds(1)))
    } setup: {
        try generatedJPEG()
    }
}

/// The generated picture encoded by `Image.write` (the only encoder the package exposes goes
/// through a file): written to a temporary folder, read back, deleted.
func generatedJPEG() throws -> [UInt8] {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("darknet-swift-benchmarks-\(ProcessInfo.processInfo.processIdentifier)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("generated.jpg").path
    try generatedPhoto(width: photoWidth, height: photoHeight).write(to: path, jpegQuality: 90)
    return try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
}
