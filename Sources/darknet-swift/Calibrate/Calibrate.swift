import ArgumentParser
import CommandSupport
import Darknet
import Foundation
import Imaging

struct Calibrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make the calibration file --precision int8 runs on, from your own images.",
        discussion: """
        Runs the f32 network on the images (files or folders of .jpg/.jpeg/.png, in the order \
        given, each folder's files sorted; or --data's train= list) three times: each \
        convolution's input range, its histogram, and the error of the layer in int8 on the \
        f32 network's input to it. Each \
        range is chosen by --method: percentile (the default: the (100 − P)% smallest and \
        largest values left out, P = --percentile) or entropy (the upper end where the \
        quantized histogram differs least from the original, in Kullback-Leibler divergence). \
        The file is JSON: the cfg's and weights' SHA-256 (int8 refuses another model), the \
        input size, the method, and per convolution its range, scale and zero point, its error \
        and whether it runs int8; the first convolution, those feeding a [yolo]/[region] head \
        and any whose error is above --max-error stay f32, with the reason. The same images \
        give the same file. A table of the layers goes to stdout.

        EXAMPLES:
          darknet-swift calibrate yolov3.cfg yolov3.weights photos/ -o yolov3.calib
          darknet-swift calibrate --data obj.data obj.cfg obj.weights -o obj.calib
          darknet-swift detect yolov3.cfg yolov3.weights dog.jpg --precision int8 --calibration yolov3.calib
        """
    )

    @OptionGroup var files: ModelArguments

    @Argument(help: "Calibration images: files, or folders of .jpg/.jpeg/.png files.")
    var images: [String] = []

    @Option(help: ArgumentHelp("A darknet .data file whose train= list gives the images (instead of IMAGES).", valueName: "file"))
    var data: String?

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("The calibration file to write.", valueName: "file"))
    var output: String

    @Flag(help: "Overwrite an existing --output file.")
    var force = false

    @Option(help: "How each range is chosen: percentile or entropy.")
    var method: Calibration.RangeMethod = .percentile

    @Option(help: "Percent of the values each range keeps at each end (percentile; entropy's low end).")
    var percentile: Double = 99.99

    @Option(help: "Relative error of a layer in int8 above which it stays f32.")
    var maxError: Float = 0.05

    @OptionGroup var size: SizeOption<DetectorSize>

    @OptionGroup var threads: ThreadsOption

    @OptionGroup var strict: StrictOption

    func validate() throws {
        if images.isEmpty && data == nil { throw ValidationError("give at least one calibration image (a file or a folder), or --data FILE") }
        if !images.isEmpty && data != nil { throw ValidationError("give calibration images or --data, not both") }
        if !(50..<100).contains(percentile) { throw ValidationError("--percentile must be in 50..<100, got \(percentile)") }
        if !(maxError > 0) || !maxError.isFinite { throw ValidationError("--max-error must be positive, got \(maxError)") }
    }

    func run() throws {
        do {
            let target = RawPath(argument: output)
            let inputs = ([files.cfg, files.weights] + images + (data.map { [$0] } ?? [])).map(RawPath.init(argument:))
            try OutputFile.check(target, replacing: force, inputs: inputs)
            let loader = ModelLoader(cfg: files.cfg, weights: files.weights,
                                     options: ModelOptions(size: size.size, strict: strict.strict, threads: threads.threads))
            let model = try loader.detectorModel()
            let paths = try imagePaths()
            let calibrator = try Calibrator(model: model, weightsFile: files.weights, execution: loader.execution,
                                            options: .init(method: method, percentile: percentile, errorBound: maxError))
            let channels = model.net.channels
            let calibration = try calibrator.calibrate(count: paths.count) { index in
                try Image(decoding: FileBytes.imageBytes(paths[index]), name: paths[index].display, channels: channels)
            }
            try AtomicFile.write(Array(try calibration.jsonData()), to: target, replacing: force, inputs: inputs)
            try StandardOutput.write(Self.table(calibration))
        } catch {
            throw conclude(error)
        }
    }

    /// The images named, folders expanded (their image files, sorted), or the `--data` file's
    /// `train=` list (read as `map` reads its `valid=` list); a folder that cannot be listed, or
    /// one without images, is an error.
    func imagePaths() throws -> [RawPath] {
        if let data {
            let list = try DataFileOptions.read(data).existingPath("train", for: "calibrate's images")
            let paths = try DataSetArguments.lines(list)
            if paths.isEmpty { throw Problem.noImages(list) }
            return paths
        }
        let source = try InputSource(paths: images.map(RawPath.init(argument:)), list: nil, recursive: false)
        var paths: [RawPath] = []
        for event in source {
            switch event {
            case .image(let image): paths.append(image.path)
            case .problem(_, let error): throw error
            }
        }
        if paths.isEmpty { throw Problem.noImages(images.joined(separator: ", ")) }
        return paths
    }

    /// One line per convolution: its precision, range, quantization, error and why it stays f32.
    static func table(_ calibration: Calibration) -> String {
        func column(_ text: String, _ width: Int) -> String { text.padding(toLength: max(width, text.count), withPad: " ", startingAt: 0) }
        func number(_ value: Float) -> String { String(format: "%.4g", value) }
        var text = "layer  precision  low         high        scale       zero  error     reason\n"
        for layer in calibration.layers {
            text += String(format: "%5d  ", layer.layer) + column(layer.precision.rawValue, 9) + "  "
                + column(number(layer.low), 10) + "  " + column(number(layer.high), 10) + "  " + column(number(layer.scale), 10)
                + String(format: "  %4d  ", layer.zeroPoint) + column(layer.error.map { String(format: "%.4f", $0) } ?? "-", 8)
                + "  " + (layer.reason ?? "") + "\n"
        }
        let int8 = calibration.layers.filter { $0.precision == .int8 }.count
        return text + "\(int8) of \(calibration.layers.count) convolutions int8, from \(calibration.images) images\n"
    }

    enum Problem: Swift.Error, CustomStringConvertible {
        case noImages(String)

        var description: String {
            switch self {
            case .noImages(let given): return "no .jpg, .jpeg or .png image in \(given)"
            }
        }
    }
}

extension Calibration.RangeMethod: ExpressibleByArgument {}
