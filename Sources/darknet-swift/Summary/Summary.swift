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
    /// fitted to the network and which NMS runs, each with its reason; with a class tree, how
    /// the dialect's darknet picks a class from it.
    static func choices(_ model: ModelDescription) -> String {
        var text = "dialect   \(model.dialect)\n"
        if ModelFiles.isDetector(model) {
            text += "input     \(model.inputFitting)\n"
            let nms = model.nmsKind
            text += "nms       \(nms.kind) (\(nms.reason))\n"
        }
        for layer in model.layers {
            let pjreddie = model.dialect.dialect == .pjreddie
            if let tree = layer.headClassTree {
                text += "tree      layer \(layer.index): \(tree.count) classes in \(tree.groupSizes.count) groups; "
                text += pjreddie ? "the class where the tree's running product falls to --hier-thresh (pjreddie's detector test)\n"
                                 : "the last class whose path probability is above 0.5 (AlexeyAB's detector test)\n"
            }
            if case .softmax(let softmax) = layer.kind, let tree = softmax.tree {
                text += "tree      layer \(layer.index): \(tree.count) classes in \(tree.groupSizes.count) groups; "
                text += pjreddie ? "classify scores the leaves' path probabilities (pjreddie's classifier predict)\n"
                                 : "classify scores every class's path probability (AlexeyAB's classifier predict)\n"
            }
        }
        return text
    }
}
