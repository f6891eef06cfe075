import Foundation
import Imaging
import Kernels

/// Makes a `Calibration` for a detector from the user's images (`darknet-swift calibrate`):
/// runs the f32 network on each image, as `Detector` prepares it, three times:
///
/// 1. the smallest and largest value of every convolution's input;
/// 2. each input's histogram over that range (`ValueHistogram`), from which its range is chosen
///    (`RangeChoice`: a percentile, or the entropy method), hence its scale and zero point;
/// 3. each convolution run in int8 on the f32 network's input to it, against its f32 output:
///    the relative error `‖y₈ − y‖ / ‖y‖` over all images (`Calibration.Layer.error`).
///
/// Then every convolution runs int8 except: the first (it reads the image, and its few
/// channels make it cheap), those feeding a detection head (`[yolo]`, `[region]`…: their
/// outputs are the boxes), XNOR layers, and any whose error is above `errorBound`; each with
/// its reason in the file. The same images in the same order give the same file, on any
/// thread count: the f32 network's bits do not depend on it, the histograms are integer
/// counts and the error sums run in one order.
public final class Calibrator {
    public struct Options: Sendable, Hashable {
        public var method: Calibration.RangeMethod
        /// What `percentile` keeps at each end (and where `entropy` cuts the low end), in percent.
        public var percentile: Double
        /// Relative error above which a layer stays f32.
        public var errorBound: Float

        public init(method: Calibration.RangeMethod = .percentile, percentile: Double = 99.99, errorBound: Float = 0.05) {
            (self.method, self.percentile, self.errorBound) = (method, percentile, errorBound)
        }
    }

    /// Which pass an image is run for (`progress`).
    public enum Pass: Int, Sendable {
        case ranges = 1, histograms, errors
    }

    public let model: ModelDescription
    public let weightsFile: String
    public let options: Options
    private let detector: Detector
    private let weightsSHA256: String

    /// A calibrator for `model` (read from a file or text, so its cfg has a checksum) and the
    /// weights file `weightsFile`, its networks on `execution`'s threads (f32; its precision is ignored).
    public init(model: ModelDescription, weightsFile: String, execution: ExecutionOptions = .init(),
                options: Options = .init()) throws {
        guard model.sourceSHA256 != nil else { throw Int8Error.unverifiable(what: "cfg's text") }
        var f32 = execution
        f32.precision = .f32
        let file = try MappedFile(path: weightsFile)
        weightsSHA256 = file.sha256()
        self.model = model
        self.weightsFile = weightsFile
        self.options = options
        detector = try Detector(PreparedModel(model: model, weightsFile: weightsFile, options: f32))
    }

    /// The convolutions, each with why it stays f32 whatever its error (nil: it may run int8).
    var convolutions: [(index: Int, keptF32: String?)] {
        let first = model.layers.first { if case .convolutional = $0.kind { true } else { false } }?.index
        return model.layers.compactMap { layer in
            guard case .convolutional(let conv) = layer.kind else { return nil }
            if layer.index == first { return (layer.index, "the first convolution") }
            if layer.index + 1 < model.layers.count, model.layers[layer.index + 1].isDetectionHead {
                return (layer.index, "feeds the [\(model.layers[layer.index + 1].typeName)] layer \(layer.index + 1)")
            }
            if conv.xnor { return (layer.index, "an XNOR convolution") }
            if !Int8Convolution.runs(conv, inputChannels: layer.input.channels) {
                return (layer.index, "too deep for exact 32-bit sums (k = \(conv.fanIn(inputChannels: layer.input.channels)))")
            }
            return (layer.index, nil)
        }
    }

    /// The calibration of `count` images, image `i` given by `image(i)` once per pass (so they
    /// need not all be in memory); `progress(pass, i)` before each.
    public func calibrate(count: Int, image: (Int) throws -> Image, progress: (Pass, Int) -> Void = { _, _ in }) throws -> Calibration {
        let convolutions = self.convolutions
        let network = try Network(detector.prepared)
        let isConvolution = Set(convolutions.map(\.index))
        /// Runs every image for `pass`: `input(layer, values)` sees each convolution's input,
        /// `output(layer, values)` its output (the network is observed: nothing is fused).
        func run(_ pass: Pass, input: (Int, UnsafeBufferPointer<Float>) -> Void,
                 output: (Int, UnsafeBufferPointer<Float>) -> Void = { _, _ in }) throws {
            try withoutActuallyEscaping(input) { input in
                try withoutActuallyEscaping(output) { output in
                    for i in 0..<count {
                        progress(pass, i)
                        let values = detector.prepare(try image(i)).data
                        if isConvolution.contains(0) { values.withUnsafeBufferPointer { input(0, $0) } }
                        try network.forward(values) { layer, values in
                            if isConvolution.contains(layer.index) { output(layer.index, values) }
                            if isConvolution.contains(layer.index + 1) { input(layer.index + 1, values) }
                        }
                    }
                }
            }
        }
        var extremes = [Int: (Float, Float)]()
        try run(.ranges, input: { index, values in
            var (low, high) = extremes[index] ?? (.infinity, -.infinity)
            for x in values where x.isFinite {
                low = min(low, x)
                high = max(high, x)
            }
            extremes[index] = (low, high)
        })
        extremes = extremes.mapValues { $0.0 <= $0.1 ? $0 : (0, 0) }
        var histograms = extremes.mapValues { ValueHistogram(smallest: $0.0, largest: $0.1) }
        try run(.histograms, input: { index, values in histograms[index]?.add(values) })
        let ranges = histograms.mapValues { histogram in
            options.method == .percentile ? RangeChoice.percentile(histogram, options.percentile)
                : RangeChoice.entropy(histogram, percentile: options.percentile)
        }
        var layers = convolutions.map { convolution in
            let (low, high) = ranges[convolution.index] ?? (0, 0)
            let (smallest, largest) = extremes[convolution.index] ?? (0, 0)
            return Calibration.Layer(layer: convolution.index, precision: .int8, reason: nil, low: low, high: high,
                                     min: smallest, max: largest, error: nil)
        }
        var calibration = Calibration(cfg: .init(file: model.file, sha256: model.sourceSHA256!),
                                      weights: .init(file: weightsFile, sha256: weightsSHA256),
                                      input: .init(width: model.net.width, height: model.net.height), method: options.method,
                                      percentile: options.percentile, images: count, errorBound: options.errorBound,
                                      layers: layers.filter { entry in Int8Convolution.runs(model, entry.layer) })
        let errors = try measureErrors(calibration, run: { try run($0, input: $1, output: $2) })
        for (position, convolution) in convolutions.enumerated() {
            layers[position].error = errors[convolution.index].map(Float.init)
            if let reason = convolution.keptF32 {
                (layers[position].precision, layers[position].reason) = (.f32, reason)
            } else if let error = layers[position].error, !(error <= options.errorBound) {
                (layers[position].precision, layers[position].reason) = (.f32, "error \(error) above the bound \(options.errorBound)")
            }
        }
        calibration.layers = layers
        return calibration
    }

    /// Pass 3: each convolution of `provisional` (all of them int8) run on the f32 network's
    /// input to it; `‖y₈ − y‖ / ‖y‖` per layer, nil where the layer cannot run int8.
    private func measureErrors(_ provisional: Calibration,
                               run: (Pass, (Int, UnsafeBufferPointer<Float>) -> Void, (Int, UnsafeBufferPointer<Float>) -> Void) throws -> Void)
        throws -> [Int: Double] {
        var execution = detector.prepared.options
        execution.precision = .int8(provisional)
        execution.convolutionAlgorithm = .im2col
        let int8 = try PreparedModel(model: model, weightsFile: weightsFile, options: execution)
        let context = execution.kernels
        let workspaceCount = model.layers.reduce(1) { count, layer in
            guard case .convolutional(let conv) = layer.kind, int8.methods[layer.index] == .int8 else { return count }
            return max(count, PreparedConvolution.workspaceCount(layer, conv, PlanningContext(batch: 1, kernels: context, method: .int8)))
        }
        let workspace = UnsafeMutablePointer<Float>.allocate(capacity: workspaceCount)
        defer { workspace.deallocate() }
        var saved = [Float](), result = [Float]()
        var sums = [Int: (difference: Double, reference: Double)]()
        try run(.errors, { index, input in
            if int8.methods[index] == .int8 { saved = Array(input) }
        }, { index, output in
            guard int8.methods[index] == .int8, let route = int8.convolutions[index]?.route else { return }
            result = [Float](repeating: 0, count: output.count)
            saved.withUnsafeBufferPointer { saved in
                result.withUnsafeMutableBufferPointer { result in
                    var timer: PhaseTimer? = nil
                    let io = ConvolutionIO(input: saved.baseAddress!, output: result.baseAddress!, images: 1, residual: nil, pooled: nil)
                    route.run(io, workspace: workspace, context: context, timer: &timer)
                }
            }
            var (difference, reference) = sums[index] ?? (0, 0)
            for (y8, y) in zip(result, output) where y.isFinite {
                difference += Double(y8 - y) * Double(y8 - y)
                reference += Double(y) * Double(y)
            }
            sums[index] = (difference, reference)
        })
        return sums.mapValues { $0.reference > 0 ? ($0.difference / $0.reference).squareRoot() : 0 }
    }
}

extension Int8Convolution {
    /// `runs` for layer `index` of `model`.
    static func runs(_ model: ModelDescription, _ index: Int) -> Bool {
        guard case .convolutional(let conv) = model.layers[index].kind else { return false }
        return runs(conv, inputChannels: model.layers[index].input.channels)
    }
}
