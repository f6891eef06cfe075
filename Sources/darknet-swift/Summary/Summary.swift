import ArgumentParser
import CommandSupport
import Darknet

struct Summary: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the layer table of a cfg: types, filters, size/stride, shapes and BFLOPs, as darknet does."
    )

    @Argument(help: "Darknet .cfg file.")
    var cfg: String

    @OptionGroup var size: SizeOption<Size>

    @Flag(help: "After the table, list each convolution's method and parameter memory.")
    var methods = false

    @OptionGroup var convolution: ConvolutionAlgorithmOption<PlansConvolutions>

    @OptionGroup var library: GEMMOption

    @OptionGroup var arithmetic: PrecisionOption

    @OptionGroup var strict: StrictOption

    /// `summary`'s `--size` words; any size the engine reads (a detector's cfg then says
    /// whether its strides fit, naming its line).
    enum Size: SizeRule {
        static let help = "Network input width and height (overrides [net])."
    }

    /// `summary`'s `--conv-algorithm` words: the methods `--methods` lists.
    enum PlansConvolutions: OptionHelp {
        static let help = "Convolution methods for --methods: auto (Winograd where it pays, within twice the weights), im2col (darknet's), winograd (weights transformed at load) or winograd-streamed (transformed in each pass)."
    }

    func run() throws {
        do {
            let loader = ModelLoader(cfg: cfg, weights: nil,
                                     options: ModelOptions(size: size.size, strict: strict.strict,
                                                           convolutionAlgorithm: convolution.convAlgorithm, gemm: library.gemm,
                                                           calibration: arithmetic.calibrationFile))
            let model = try loader.model()
            let options = try loader.executionOptions()
            try options.precision.calibration?.check(cfgOf: model)
            try StandardOutput.write(LayerTable.render(model) + Self.choices(model))
            if methods { try StandardOutput.write(MethodTable.render(model, options: options)) }
        } catch {
            throw conclude(error)
        }
    }

    /// What the cfg decides beyond its layers: its dialect (for AlexeyAB's, that the table is
    /// his darknet's) and, for a detector, how images are fitted to the network and which NMS
    /// runs, each with its reason; with a class tree, how the dialect's darknet picks a class
    /// from it.
    static func choices(_ model: ModelDescription) -> String {
        var text = "dialect   \(model.dialect)\n"
        if model.dialect.dialect == .alexeyAB {
            text += "table     AlexeyAB's darknet's (parse_network_cfg_custom's lines at batch 1, as his detector test prints them)\n"
        }
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
