@testable import Darknet
import TestSupport
import XCTest

final class WeightsReaderTests: XCTestCase {
    /// conv0: 2 filters 3×3 over 1 channel with batch norm; conv1: 1 filter 1×1 without.
    static let cfg = "[net]\nwidth=4\nheight=4\nchannels=1\n[convolutional]\nfilters=2\nsize=3\npad=1\nbatch_normalize=1\nactivation=linear\n[convolutional]\nfilters=1\nsize=1\nactivation=linear\n"

    var model: ModelDescription { get throws { try ModelDescription(text: Self.cfg) } }

    /// Header (+ parameters) as little-endian bytes.
    func file(major: Int32 = 0, minor: Int32 = 2, revision: Int32 = 0, wideSeen: Bool = true, floats: [Float]) -> [UInt8] {
        var bytes: [UInt8] = []
        for v in [major, minor, revision] { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
        if wideSeen { withUnsafeBytes(of: UInt64(12345).littleEndian) { bytes += $0 } } else { withUnsafeBytes(of: UInt32(7).littleEndian) { bytes += $0 } }
        for f in floats { withUnsafeBytes(of: f.bitPattern.littleEndian) { bytes += $0 } }
        return bytes
    }

    /// 2 biases + 2 scales + 2 means + 2 variances + 18 weights, then 1 bias + 2 weights.
    static let parameterCount = 2 + 2 + 2 + 2 + 18 + 1 + 2

    /// The convolutions' folded parameters read from `bytes`.
    func read(_ bytes: [UInt8], name: String = "m.weights") throws -> [Int: ConvolutionWeights] {
        let model = try self.model
        return try bytes.withUnsafeBytes { try WeightsReader.read($0, file: name, for: model) }.layers.compactMapValues {
            guard case .convolution(let weights) = $0 else { return nil }
            return weights
        }
    }

    /// Every float a layer's parameters hold, as bits (to compare two reads).
    static func bits(_ weights: LayerWeights) -> [UInt32] {
        switch weights {
        case .convolution(let w): (w.weights + w.biases).map(\.bitPattern)
        case .connected(let w): (w.weights + w.biases).map(\.bitPattern)
        case .batchnorm(let w): (w.scales + w.offsets).map(\.bitPattern)
        case .local(let w): (w.weights + w.biases).map(\.bitPattern)
        case .shortcut(let w): w.weights.map(\.bitPattern)
        case .implicit(let w): w.values.map(\.bitPattern)
        case .crnn(let w): w.convolutions.flatMap { ($0.weights + $0.biases).map(\.bitPattern) }
        }
    }

    /// A prepared convolution's weights in its route's layout, and its biases, as bits.
    static func bits(_ convolution: PreparedConvolution) -> [UInt32] {
        switch convolution {
        case .gemm(let route): (route.weights + route.spec.biases).map(\.bitPattern)
        case .im2col(let route): (route.weights + route.spec.biases).map(\.bitPattern)
        case .winograd(let route): (route.weights + route.spec.biases).map(\.bitPattern)
        case .winogradStride2(let route): (route.weights + route.spec.biases).map(\.bitPattern)
        case .xnor(let route): (route.signs + route.means + route.spec.biases).map(\.bitPattern)
        case .int8(let route):
            route.weights.map { UInt32(UInt8(bitPattern: $0)) } + (route.scales + route.spec.biases).map(\.bitPattern)
                + route.compensations.map { UInt32(bitPattern: $0) }
        }
    }

    func testExactSizeLoadsAndFoldsBatchNorm() throws {
        var floats = [Float](repeating: 0, count: Self.parameterCount)
        floats[0] = 0.5; floats[1] = -1          // biases
        floats[2] = 2; floats[3] = 1             // scales
        floats[4] = 1; floats[5] = 0             // rolling mean
        floats[6] = 4; floats[7] = 1             // rolling variance
        for i in 0..<18 { floats[8 + i] = Float(i) }
        floats[26] = 0.25                        // conv1 bias
        floats[27] = 3; floats[28] = -3          // conv1 weights
        let weights = try read(file(floats: floats))
        let f0 = 2 / (2 + Double(Float(0.000001)))    // scale / (sqrt(var) + .000001)
        XCTAssertEqual(weights[0]!.biases[0], Float(0.5 - 1 * f0), accuracy: 1e-6)
        XCTAssertEqual(weights[0]!.weights[4], Float(4 * f0), accuracy: 1e-6)
        XCTAssertEqual(weights[0]!.biases[1], -1)
        XCTAssertEqual(weights[1]!.biases, [0.25])
        XCTAssertEqual(weights[1]!.weights, [3, -3])
    }

    func testFoldingMatchesDarknetsInferenceArithmetic() {
        // darknet: scale·(x − mean)/(sqrt(var) + .000001) + bias on the conv sum x.
        let x: Float = 1.75, w: Float = 0.5, input: Float = 3.5
        let folded = ConvolutionWeights.folding(weights: [w], biases: [0.3], scales: [1.7], rollingMean: [0.2], rollingVariance: [0.81])
        let darknet = Float(1.7) * Float((Double(w * input) - 0.2) / (Double(Float(0.81)).squareRoot() + Double(Float(0.000001)))) + 0.3
        XCTAssertEqual(folded.weights[0] * input + folded.biases[0], darknet, accuracy: 1e-5)
        _ = x
    }

    func testNarrowSeenHeader() throws {
        // major*10+minor < 2: seen is 4 bytes.
        let weights = try read(file(major: 0, minor: 1, wideSeen: false, floats: [Float](repeating: 1, count: Self.parameterCount)))
        XCTAssertEqual(weights.count, 2)  // both convolutions
        XCTAssertEqual(try [UInt8](file(major: 0, minor: 1, wideSeen: false, floats: [])).withUnsafeBytes {
            try WeightsReader.readHeader($0, file: "h").size
        }, 16)
    }

    func testShortFileNamesLayerPartAndOffset() throws {
        let full = file(floats: [Float](repeating: 1, count: Self.parameterCount))
        // Cut inside conv1's weights: header 20 + conv0 (26 floats) + bias (1) = 128 bytes; conv1 weights start at 128.
        let cut = Array(full.prefix(130))
        XCTAssertThrowsError(try read(cut)) { error in
            XCTAssertEqual(error as? WeightsError, .tooShort(file: "m.weights", layer: 1, part: "weights", offset: 128,
                                                             expectedSize: 136, actualSize: 130))
            XCTAssertTrue(String(describing: error).contains("layer 1"))
            XCTAssertTrue(String(describing: error).contains("136"))
        }
        // Cut inside conv0's rolling variance (starts at 20 + 6·4 = 44).
        XCTAssertThrowsError(try read(Array(full.prefix(46)))) { error in
            XCTAssertEqual(error as? WeightsError, .tooShort(file: "m.weights", layer: 0, part: "rolling variance", offset: 44,
                                                             expectedSize: 136, actualSize: 46))
        }
    }

    func testLongFileIsAnError() {
        let long = file(floats: [Float](repeating: 1, count: Self.parameterCount + 3))
        XCTAssertThrowsError(try read(long)) { error in
            XCTAssertEqual(error as? WeightsError, .tooLong(file: "m.weights", expectedSize: 136, actualSize: 148))
        }
    }

    func testTruncatedHeader() {
        XCTAssertThrowsError(try read([0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 2])) { error in
            XCTAssertEqual(error as? WeightsError, .truncatedHeader(file: "m.weights", bytes: 14, needed: 16))
        }
        XCTAssertThrowsError(try read(Array(file(floats: []).prefix(17)))) { error in
            XCTAssertEqual(error as? WeightsError, .truncatedHeader(file: "m.weights", bytes: 17, needed: 20))
        }
        XCTAssertThrowsError(try read([])) { XCTAssertEqual($0 as? WeightsError, .empty(file: "m.weights")) }
    }

    func testHTMLPageAndLFSPointerAreRecognised() {
        let html = Array("<!DOCTYPE html>\n<html><body>404 Not Found</body></html>".utf8)
        XCTAssertThrowsError(try read(html)) { XCTAssertEqual($0 as? WeightsError, .htmlPage(file: "m.weights")) }
        let lfs = Array("version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 248007048\n".utf8)
        XCTAssertThrowsError(try read(lfs)) { error in
            XCTAssertEqual(error as? WeightsError, .gitLFSPointer(file: "m.weights"))
            XCTAssertTrue(String(describing: error).contains("LFS"))
        }
        XCTAssertThrowsError(try read(Array("[net]\nwidth=416\nheight=416\n".utf8))) {
            XCTAssertEqual($0 as? WeightsError, .textFile(file: "m.weights"))
        }
    }

    func testNonFiniteValueIsReportedWithItsOffset() {
        var floats = [Float](repeating: 1, count: Self.parameterCount)
        floats[10] = .nan   // conv0 weights start at float 8: byte 20 + 8·4 = 52; index 2 → byte 60
        XCTAssertThrowsError(try read(file(floats: floats))) { error in
            XCTAssertEqual(error as? WeightsError, .nonFinite(file: "m.weights", layer: 0, part: "weights", offset: 60))
        }
    }

    /// A negative rolling variance would make darknet's sqrt NaN and every output after the
    /// layer NaN (detect printed nothing and exited 0): it is an error naming its byte. Zero
    /// is a valid variance (darknet adds .000001).
    func testNegativeVarianceIsReportedWithItsOffset() throws {
        var floats = [Float](repeating: 1, count: Self.parameterCount)
        floats[7] = -0.5   // conv0's rolling variance is floats 6–7: byte 20 + 7·4 = 48
        XCTAssertThrowsError(try read(file(floats: floats))) { error in
            XCTAssertEqual(error as? WeightsError,
                           .negative(file: "m.weights", layer: 0, part: "rolling variance", offset: 48, value: -0.5))
            XCTAssertTrue("\(error)".contains("must not be negative"), "\(error)")
        }
        floats[7] = 0
        let weights = try read(file(floats: floats))
        XCTAssertTrue(weights[0]!.weights.allSatisfy(\.isFinite))
    }

    /// The copy splits big parts into 65 536-float chunks across workers; the first non-finite
    /// value is found wherever it lies (and whichever chunk sees one first), and the values are
    /// copied bit for bit, NaN payloads included.
    func testCopyFloatsFindsTheFirstNonFiniteInAnyChunk() {
        var floats = (0..<300_001).map { Float($0) * 0.5 - 7 }
        let clean = floats.withUnsafeBytes { WeightsReader.copyFloats($0, threads: 2) }
        XCTAssertNil(clean.firstNonFinite)
        XCTAssertEqual(clean.values.map(\.bitPattern), floats.map(\.bitPattern))
        for (positions, first) in [([299_999, 150_001], 150_001), ([65_536], 65_536), ([0, 200_000], 0), ([300_000], 300_000)] {
            var bad = floats
            for (n, i) in positions.enumerated() { bad[i] = n % 2 == 0 ? Float(bitPattern: 0x7FC0_1234) : -.infinity }
            let copied = bad.withUnsafeBytes { WeightsReader.copyFloats($0, threads: 2) }
            XCTAssertEqual(copied.firstNonFinite, first, "\(positions)")
            XCTAssertEqual(copied.values.map(\.bitPattern), bad.map(\.bitPattern))
        }
        floats[3] = .greatestFiniteMagnitude
        XCTAssertNil(floats.withUnsafeBytes { WeightsReader.copyFloats($0, threads: 2) }.firstNonFinite)
    }

    /// Folding splits the filters across workers: the result is the one-thread result.
    func testFoldingIsTheSameOnOneAndTwoWorkers() {
        let filters = 64, perFilter = 4096
        let weights = (0..<(filters * perFilter)).map { Float(($0 * 7919) % 1000) / 333 - 1.5 }
        let statistics = (0..<filters).map { Float($0 % 13) / 7 + 0.1 }
        func fold(threads: Int) -> ConvolutionWeights {
            .folding(weights: weights, biases: statistics, scales: statistics.reversed(),
                     rollingMean: statistics, rollingVariance: statistics.map { $0 * 2 }, threads: threads)
        }
        let one = fold(threads: 1), two = fold(threads: 2)
        XCTAssertEqual(one.weights.map(\.bitPattern), two.weights.map(\.bitPattern))
        XCTAssertEqual(one.biases.map(\.bitPattern), two.biases.map(\.bitPattern))
        XCTAssertNotEqual(one.weights, weights)
    }

    /// The reader folds batch norm while it copies (`copyFloats(_:scaledBy:)`): bit for bit
    /// `ConvolutionWeights.folding`, across chunk boundaries that fall inside filters, on 1 and 2
    /// workers.
    func testFoldingWhileCopyingIsFolding() {
        let filters = 37, perFilter = 4_608 + 9      // 170,829 floats: 3 chunks, filters straddling them
        let weights = (0..<(filters * perFilter)).map { Float(($0 * 7919) % 1000) / 333 - 1.5 }
        let statistics = (0..<filters).map { Float($0 % 13) / 7 + 0.1 }
        let expected = ConvolutionWeights.folding(weights: weights, biases: statistics, scales: statistics.reversed(),
                                                  rollingMean: statistics, rollingVariance: statistics.map { $0 * 2 })
        let (factors, biases) = ConvolutionWeights.foldingFactors(biases: statistics, scales: statistics.reversed(),
                                                                  rollingMean: statistics,
                                                                  rollingVariance: statistics.map { $0 * 2 })
        XCTAssertEqual(biases.map(\.bitPattern), expected.biases.map(\.bitPattern))
        for threads in [1, 2] {
            let (values, bad) = weights.withUnsafeBytes { WeightsReader.copyFloats($0, scaledBy: factors, threads: threads) }
            XCTAssertNil(bad)
            XCTAssertEqual(values.map(\.bitPattern), expected.weights.map(\.bitPattern), "\(threads) workers")
        }
    }

    /// The non-finite check is on the stored values: a weight that only overflows once scaled
    /// is not reported, and the first stored NaN after it is.
    func testNonFiniteCheckIsOnStoredValues() {
        var weights = [Float](repeating: 1, count: 200_000)
        weights[10] = .greatestFiniteMagnitude          // × 4 overflows to +inf
        weights[150_000] = .nan
        let (values, bad) = weights.withUnsafeBytes { WeightsReader.copyFloats($0, scaledBy: [4, 4], threads: 2) }
        XCTAssertEqual(values[10], .infinity)
        XCTAssertEqual(bad, 150_000)
    }

    func testUnreadableFile() throws {
        XCTAssertThrowsError(try WeightsReader.read(contentsOf: "/nonexistent/y.weights", for: try model)) { error in
            guard case .unreadable(let file, _)? = error as? WeightsError else { return XCTFail("\(error)") }
            XCTAssertEqual(file, "/nonexistent/y.weights")
        }
    }

    func testDirectoryAndEmptyFileAreErrors() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("weights-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        XCTAssertThrowsError(try WeightsReader.read(contentsOf: directory.path, for: try model)) { error in
            XCTAssertEqual(error as? WeightsError, .unreadable(file: directory.path, reason: "is a directory"))
        }
        let empty = directory.appendingPathComponent("empty.weights")
        _ = FileManager.default.createFile(atPath: empty.path, contents: Data())
        XCTAssertThrowsError(try WeightsReader.read(contentsOf: empty.path, for: try model)) { error in
            XCTAssertEqual(error as? WeightsError, .empty(file: empty.path))
        }
    }

    /// The mapped reader (which drops each layer's pages once folded) reads what the in-memory one reads.
    func testMappedFileReadsTheSameParameters() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3-tiny"))
        let path = try TestData.path("yolov3-tiny.weights")
        let mapped = try WeightsReader.read(contentsOf: path, for: model)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let inMemory = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: path, for: model) }
        XCTAssertEqual(mapped.layers.keys.sorted(), inMemory.layers.keys.sorted())
        for (layer, parameters) in inMemory.layers {
            XCTAssertEqual(mapped[layer].map(Self.bits), Self.bits(parameters), "layer \(layer)")
        }
    }

    /// Preparing while reading (`PreparedModel(weightsBytes:)`) gives, bit for bit, what reading
    /// plainly and preparing afterwards gives: the layers transformed at load only pass through
    /// the reader's scratch buffer (reused across layers of different sizes, with and without
    /// batch norm; the stride-2 one among them), the streamed ones are reordered, the others
    /// (1×1, im2col) stay plain. A small model on synthetic weights, so the AddressSanitizer pass of CI stays short.
    func testReadingPreparesEachConvolutionForItsMethod() throws {
        let model = try ModelDescription(text: """
            [net]\nwidth=32\nheight=32\nchannels=3
            [convolutional]\nbatch_normalize=1\nfilters=16\nsize=3\nstride=1\npad=1\nactivation=leaky
            [convolutional]\nbatch_normalize=1\nfilters=64\nsize=3\nstride=1\npad=1\nactivation=leaky
            [convolutional]\nbatch_normalize=1\nfilters=32\nsize=3\nstride=2\npad=1\nactivation=leaky
            [convolutional]\nbatch_normalize=1\nfilters=16\nsize=1\nstride=1\npad=0\nactivation=leaky
            [convolutional]\nbatch_normalize=1\nfilters=40\nsize=3\nstride=1\npad=1\nactivation=leaky
            [convolutional]\nfilters=18\nsize=3\nstride=1\npad=1\nactivation=linear
            """)
        let bytes = SyntheticWeights.bytes(for: model, seed: 3)
        let plain = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
        for algorithm in ConvolutionAlgorithm.allCases {
            let options = ExecutionOptions(threads: 2, convolutionAlgorithm: algorithm)
            let read = try bytes.withUnsafeBytes { try PreparedModel(model: model, weightsBytes: $0, options: options) }
            let prepared = try PreparedModel(model: model, weights: plain, options: options)
            XCTAssertEqual(read.methods, prepared.methods, "\(algorithm)")
            for layer in model.layers {
                let (got, expected) = (try XCTUnwrap(read.convolutions[layer.index]), try XCTUnwrap(prepared.convolutions[layer.index]))
                XCTAssertEqual(Self.bits(got), Self.bits(expected), "\(algorithm) layer \(layer.index)")
            }
            // Layers 0, 1, 4 and 5 are 3×3 stride 1 and layer 2 3×3 stride 2 (on 64 channels): a
            // forced Winograd method takes all five, `auto` the four with 16 input channels or more.
            let winograd = read.methods.filter { $0?.isWinograd == true }.count
            XCTAssertEqual(winograd, [.im2col: 0, .auto: 4][algorithm] ?? 5, "\(algorithm)")
            XCTAssertEqual(read.methods[2], algorithm == .im2col ? .im2col : .winogradStride2, "\(algorithm)")
        }
    }

    /// A Winograd method for a layer that cannot run it (conv1 is 1×1) gives that layer the
    /// method it can run instead of transforming weights of the wrong shape.
    func testWinogradMethodOnAnIneligibleLayerFallsBack() throws {
        let model = try self.model
        guard case .convolutional(let pointwise) = model.layers[1].kind, case .convolutional(let conv) = model.layers[0].kind else {
            return XCTFail("not convolutions")
        }
        let weights = ConvolutionWeights(weights: [3, -3], biases: [0.25])
        for method in [ConvolutionMethod.winograd, .winogradStreamed, .im2colBands] {
            let prepared = PreparedConvolution(model.layers[1], pointwise, weights: weights, method: method, options: .init())
            XCTAssertEqual(prepared.method, .gemm, "\(method)")
        }
        let conv0 = ConvolutionWeights(weights: [Float](repeating: 1, count: 18), biases: [0, 0])
        XCTAssertEqual(PreparedConvolution(model.layers[0], conv, weights: conv0, method: .winograd, options: .init()).method,
                       .winograd)
        let plain = ExecutionOptions(usesPackedKernel: false)
        XCTAssertEqual(PreparedConvolution(model.layers[0], conv, weights: conv0, method: .winogradStreamed, options: plain).method,
                       .winograd, "no packed kernel: transformed at load")
    }

    /// A layer read through the scratch buffer still reports its first non-finite weight's offset.
    func testNonFiniteValueInATransformedLayerIsReportedWithItsOffset() throws {
        let model = try self.model
        let options = ExecutionOptions(convolutionAlgorithm: .winograd)
        XCTAssertEqual(model.convolutionMethods(options)[0], .winograd)
        var floats = [Float](repeating: 1, count: Self.parameterCount)
        floats[10] = .infinity
        XCTAssertThrowsError(try file(floats: floats).withUnsafeBytes {
            try PreparedModel(model: model, weightsBytes: $0, file: "m.weights", options: options)
        }) { error in
            XCTAssertEqual(error as? WeightsError, .nonFinite(file: "m.weights", layer: 0, part: "weights", offset: 60))
        }
    }

    func testRealTinyWeightsSizeMatchesTheCfg() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3-tiny"))
        let path = try TestData.path("yolov3-tiny.weights")
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let size = try FileManager.default.attributesOfItem(atPath: resolved)[.size] as? Int
        XCTAssertEqual(size, 20 + WeightsReader.parameterBytes(for: model))
        let weights = try WeightsReader.read(contentsOf: path, for: model)
        XCTAssertEqual(weights.layers.count, 13)
    }
}

final class SyntheticWeightsTests: XCTestCase {
    func testDeterministicAndLoadable() throws {
        let model = try ModelDescription(text: WeightsReaderTests.cfg)
        let a = SyntheticWeights.bytes(for: model, seed: 1)
        XCTAssertEqual(a, SyntheticWeights.bytes(for: model, seed: 1))
        XCTAssertNotEqual(a, SyntheticWeights.bytes(for: model, seed: 2))
        XCTAssertEqual(a.count, 20 + WeightsReader.parameterBytes(for: model))
        XCTAssertNoThrow(try a.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) })
    }

    func testSplitMix64KnownValues() {
        // Reference values of SplitMix64 seeded with 0 (Vigna's splitmix64.c).
        var generator = SplitMix64(state: 0)
        XCTAssertEqual(generator.next(), 0xE220_A839_7B1D_CDAF)
        XCTAssertEqual(generator.next(), 0x6E78_9E6A_A1B9_65F4)
    }

    func testFNV1a() {
        XCTAssertEqual(SyntheticWeights.fnv1a64([]), 0xcbf2_9ce4_8422_2325)
        XCTAssertEqual(SyntheticWeights.fnv1a64(Array("a".utf8)), 0xaf63_dc4c_8601_ec8c)
    }
}
