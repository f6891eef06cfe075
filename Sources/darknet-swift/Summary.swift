import ArgumentParser
import Darknet

struct Summary: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the layer table of a cfg: types, filters, size/stride, shapes and BFLOPs, as darknet does."
    )

    @Argument(help: "Darknet .cfg file.")
    var cfg: String

    @Option(help: "Network input width and height (overrides [net]).")
    var size: Int?

    @Flag(help: "After the table, list each convolution's method and parameter memory.")
    var methods = false

    @Option(help: "Convolution methods for --methods: auto (Winograd where it pays, within twice the weights), im2col (darknet's), winograd (weights transformed at load) or winograd-streamed (transformed in each pass).")
    var convAlgorithm: ConvolutionAlgorithm = .auto

    @Flag(help: "Treat cfg warnings (unknown keys, ignored text, repeated keys) as errors.")
    var strict = false

    func run() throws {
        do {
            let model = try ModelFiles.model(cfg: cfg, weights: nil, width: size, height: size)
            try report(model.warnings, strict: strict)
            try StandardOutput.write(LayerTable.render(model) + Self.choices(model))
            if methods { try StandardOutput.write(MethodTable.render(model, options: ExecutionOptions(convolutionAlgorithm: convAlgorithm))) }
        } catch {
            throw conclude(error)
        }
    }

    /// What the cfg decides beyond its layers: its dialect and, for a detector, how images are
    /// fitted to the network and which NMS runs, each with its reason.
    static func choices(_ model: ModelDescription) -> String {
        var text = "dialect   \(model.dialect)\n"
        if ModelFiles.isDetector(model) {
            text += "input     \(model.inputFitting)\n"
            let nms = model.nmsKind
            text += "nms       \(nms.kind) (\(nms.reason))\n"
        }
        return text
    }
}
