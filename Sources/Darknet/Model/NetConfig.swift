/// The `[net]` / `[network]` section: input size and channels, and AlexeyAB's `letter_box`.
/// Training keys (batch, subdivisions, learning_rate, momentum, decay, augmentation…) are
/// read and ignored: inference runs batch 1.
public struct NetConfig: Sendable, Hashable {
    public var width: Int
    public var height: Int
    public var channels: Int
    /// AlexeyAB's `letter_box` (any non-zero value letterboxes, as his `detector test` reads
    /// it) and where it is set; nil when the cfg does not set it (see `ModelDescription.inputFitting`).
    public var letterBox: Bool?
    public var letterBoxLocation: CfgLocation?

    /// Keys darknet's `parse_net_options` reads that only matter for training.
    static let trainingKeys: Set<String> = [
        "batch", "subdivisions", "learning_rate", "momentum", "decay", "angle", "saturation",
        "exposure", "hue", "burn_in", "max_batches", "policy", "steps", "scales", "step", "gamma",
        "power", "max_crop", "min_crop", "aspect", "jitter", "adam", "B1", "B2", "eps", "time_steps",
        "notruth", "random", "center", "inputs", "flip", "mosaic", "mixup", "cutmix",
        "blur", "track", "augment_speed", "sequential_subdivisions", "try_fix_nan", "label_smooth_eps",
        "max_chart_loss", "subdivision", "rate", "seq_scales", "loss_scale", "dynamic_minibatch",
        "optimized_memory", "workspace_size_limit_MB", "adversarial_lr", "attention", "gaussian_noise",
        "contrastive", "unsupervised", "label", "use_cuda_graph", "ema_alpha", "hierarchy",
    ]

    static func parse(_ section: CfgSection) throws -> NetConfig {
        let width = try section.int("width", default: 0)
        let height = try section.int("height", default: 0)
        let channels = try section.int("channels", default: 0)
        if width <= 0 && height <= 0, let inputs = section.option("inputs") {
            throw CfgError.unsupported(section.location("inputs"),
                                       what: "a network of inputs=\(inputs.value) without width and height (darknet's recurrent text models); only image networks run here")
        }
        for (key, value) in [("width", width), ("height", height), ("channels", channels)] where value <= 0 {
            throw CfgError.invalidValue(section.location(key), value: String(value), expected: "a positive \(key) in [net]")
        }
        var net = NetConfig(width: width, height: height, channels: channels)
        if section.option("letter_box") != nil {
            net.letterBox = try section.int("letter_box", default: 0) != 0
            net.letterBoxLocation = section.location("letter_box")
        }
        return net
    }

    static let knownKeys: Set<String> = trainingKeys.union(["width", "height", "channels", "max_batches", "letter_box"])
}
