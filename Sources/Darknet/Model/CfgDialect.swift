/// Which darknet a cfg was written for. The two read the same files but answer differently
/// in two places: how `detector test` fits the image to the network (pjreddie's `detect`
/// always letterboxes; AlexeyAB's and hank-ai's resize unless `[net] letter_box=1`) and how
/// batch norm is folded (`CfgDialect.batchNormFold`).
///
/// A cfg is in AlexeyAB's dialect when it uses something that pjreddie's parser does not
/// read and AlexeyAB's does: a section (`[sam]`, `[scale_channels]`, `[Gaussian_yolo]`…), a
/// key of a section (`scale_x_y`, `nms_kind`, route `groups`, `[net] mosaic`…) or an
/// activation (`mish`, `swish`…). Anything else — pjreddie's own files, and keys neither
/// reads — leaves it in pjreddie's.
public enum CfgDialect: String, Sendable, Hashable {
    case pjreddie
    case alexeyAB = "AlexeyAB"

    /// How its darknet applies batch norm (and what a `[batchnorm]` layer reads: AlexeyAB's
    /// reads biases before the statistics).
    public var batchNormFold: BatchNormFold { self == .pjreddie ? .pjreddie : .alexeyAB }

    /// The formula its darknet computes for a cfg's `activation`: AlexeyAB's `logistic` is his
    /// Float one (`Activation.alexeyABLogistic`). His other Float versions of pjreddie's
    /// formulas (`loggy elu selu tanh relie ramp plse lhtan`) are computed pjreddie's way in
    /// both dialects, within 1e-6 relative of his.
    public func activation(_ activation: Activation) -> Activation {
        self == .alexeyAB && activation == .logistic ? .alexeyABLogistic : activation
    }
}

/// The dialect of a cfg and the first thing in it that decided it.
public struct DialectDecision: Sendable, Hashable, CustomStringConvertible {
    public var dialect: CfgDialect
    /// Where the first AlexeyAB-only section, key or activation is; nil in pjreddie's dialect.
    public var evidence: CfgLocation?
    /// What it is, e.g. "key 'scale_x_y'" or "activation 'mish'".
    public var what: String?

    /// "AlexeyAB (key 'scale_x_y' at yolov4.cfg:1152)" or "pjreddie (nothing AlexeyAB-only)".
    public var description: String {
        guard let evidence, let what else { return "\(dialect.rawValue) (nothing AlexeyAB-only)" }
        return "\(dialect.rawValue) (\(what) at \(evidence.file):\(evidence.line))"
    }

    /// The dialect of `sections` (the `[net]` section first): the first section in file
    /// order that pjreddie's parser would not know, or that holds a key or activation only
    /// AlexeyAB's reads, decides.
    static func decide(_ sections: [CfgSection]) -> DialectDecision {
        for section in sections {
            let here = CfgLocation(file: section.file, line: section.line, section: section.name)
            guard let type = PjreddieCfg.canonicalSection[section.name] else {
                if section.name == "net" || section.name == "network" {
                    if let found = Self.alexeyABKey(section, pjreddie: PjreddieCfg.netKeys, known: NetConfig.knownKeys) {
                        return found
                    }
                    continue
                }
                // A section pjreddie does not know; AlexeyAB's if the engine knows it.
                guard LayerRegistry.byName[section.name] != nil else { continue }
                return DialectDecision(dialect: .alexeyAB, evidence: here, what: "section [\(section.name)]")
            }
            let pjreddieKeys = (PjreddieCfg.sectionKeys[type] ?? []).union(PjreddieCfg.anySectionKeys)
            let known = LayerRegistry.byName[section.name].map { $0.keys } ?? []
            if let found = Self.alexeyABKey(section, pjreddie: pjreddieKeys, known: known) { return found }
        }
        return DialectDecision(dialect: .pjreddie)
    }

    /// The first option of `section` that only AlexeyAB reads: a key in `known` (the engine's
    /// keys, which include AlexeyAB's) that pjreddie does not read, or an activation pjreddie
    /// does not have.
    private static func alexeyABKey(_ section: CfgSection, pjreddie: Set<String>, known: Set<String>) -> DialectDecision? {
        for option in section.options {
            let location = CfgLocation(file: section.file, line: option.line, section: section.name, key: option.key)
            if !pjreddie.contains(option.key) && known.contains(option.key) {
                return DialectDecision(dialect: .alexeyAB, evidence: location, what: "key '\(option.key)'")
            }
            if option.key == "activation", !PjreddieCfg.activations.contains(option.value.lowercased()),
               (try? Activation(cfgName: option.value, location: location)) != nil {
                return DialectDecision(dialect: .alexeyAB, evidence: location, what: "activation '\(option.value)'")
            }
        }
        return nil
    }
}

/// What pjreddie's parser (darknet's `src/parser.c` and `activations.c`) reads: its section
/// names, the keys each `parse_*` function looks up and its activations. Facts about that
/// parser, listed here so the dialect decision can tell AlexeyAB's additions apart.
enum PjreddieCfg {
    /// Section name (with pjreddie's aliases) → the name of its key list below.
    static let canonicalSection: [String: String] = [
        "convolutional": "convolutional", "conv": "convolutional", "deconvolutional": "deconvolutional",
        "deconv": "deconvolutional", "local": "local", "activation": "activation", "logistic": "logistic",
        "l2norm": "l2norm", "rnn": "rnn", "gru": "gru", "lstm": "lstm", "crnn": "crnn",
        "connected": "connected", "conn": "connected", "crop": "crop", "cost": "cost", "region": "region",
        "yolo": "yolo", "iseg": "iseg", "detection": "detection", "softmax": "softmax", "soft": "softmax",
        "normalization": "normalization", "lrn": "normalization", "batchnorm": "batchnorm",
        "maxpool": "maxpool", "max": "maxpool", "reorg": "reorg", "avgpool": "avgpool", "avg": "avgpool",
        "route": "route", "upsample": "upsample", "shortcut": "shortcut", "dropout": "dropout",
    ]

    /// The keys each `parse_*` reads.
    static let sectionKeys: [String: Set<String>] = [
        "convolutional": ["filters", "size", "stride", "pad", "padding", "groups", "activation", "batch_normalize",
                          "binary", "xnor", "flipped", "dot"],
        "deconvolutional": ["filters", "size", "stride", "activation", "batch_normalize", "pad", "padding"],
        "local": ["filters", "size", "stride", "pad", "activation"],
        "activation": ["activation"],
        "rnn": ["output", "activation", "batch_normalize", "shortcut"],
        "gru": ["output", "batch_normalize", "tanh"],
        "lstm": ["output", "batch_normalize"],
        "crnn": ["output_filters", "hidden_filters", "activation", "batch_normalize", "shortcut"],
        "connected": ["output", "activation", "batch_normalize"],
        "crop": ["crop_height", "crop_width", "flip", "angle", "saturation", "exposure", "noadjust", "shift"],
        "cost": ["type", "scale", "ratio", "noobj", "thresh"],
        "region": ["coords", "classes", "num", "log", "sqrt", "softmax", "background", "max", "jitter", "rescore",
                   "thresh", "classfix", "absolute", "random", "coord_scale", "object_scale", "noobject_scale",
                   "mask_scale", "class_scale", "bias_match", "tree", "map", "anchors"],
        "yolo": ["classes", "num", "mask", "max", "jitter", "ignore_thresh", "truth_thresh", "random", "map", "anchors"],
        "iseg": ["classes", "ids"],
        "detection": ["coords", "classes", "rescore", "num", "side", "softmax", "sqrt", "max", "coord_scale", "forced",
                      "object_scale", "noobject_scale", "class_scale", "jitter", "random", "reorg"],
        "softmax": ["groups", "temperature", "tree", "spatial", "noloss"],
        "normalization": ["alpha", "beta", "kappa", "size"],
        "maxpool": ["stride", "size", "padding"],
        "reorg": ["stride", "reverse", "flatten", "extra"],
        "route": ["layers"],
        "upsample": ["stride", "scale"],
        "shortcut": ["from", "activation", "alpha", "beta"],
        "dropout": ["probability"],
    ]

    /// Keys `parse_network_cfg` reads in every section.
    static let anySectionKeys: Set<String> = [
        "truth", "onlyforward", "stopbackward", "dontsave", "dontload", "numload", "dontloadscales",
        "learning_rate", "smooth",
    ]

    /// The keys `parse_net_options` reads in `[net]`.
    static let netKeys: Set<String> = [
        "batch", "learning_rate", "momentum", "decay", "subdivisions", "time_steps", "notruth", "random", "adam",
        "B1", "B2", "eps", "height", "width", "channels", "inputs", "max_crop", "min_crop", "max_ratio",
        "min_ratio", "center", "clip", "angle", "aspect", "saturation", "exposure", "hue", "policy", "burn_in",
        "power", "step", "scale", "steps", "scales", "gamma", "max_batches",
    ]

    /// `get_activation`'s names.
    static let activations: Set<String> = [
        "logistic", "loggy", "relu", "elu", "selu", "relie", "plse", "hardtan", "lhtan", "linear", "ramp", "leaky",
        "tanh", "stair",
    ]
}
