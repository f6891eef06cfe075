/// The `[net]` / `[network]` section: input size and channels. Training keys (batch,
/// subdivisions, learning_rate, momentum, decay, augmentation…) are read and ignored:
/// inference runs batch 1.
public struct NetConfig: Sendable, Hashable {
    public var width: Int
    public var height: Int
    public var channels: Int

    /// Keys darknet's `parse_net_options` reads that only matter for training.
    static let trainingKeys: Set<String> = [
        "batch", "subdivisions", "learning_rate", "momentum", "decay", "angle", "saturation",
        "exposure", "hue", "burn_in", "max_batches", "policy", "steps", "scales", "step", "gamma",
        "power", "max_crop", "min_crop", "aspect", "jitter", "adam", "B1", "B2", "eps", "time_steps",
        "notruth", "random", "center", "inputs", "flip", "mosaic", "letter_box", "mixup", "cutmix",
        "blur", "track", "augment_speed", "sequential_subdivisions", "try_fix_nan", "label_smooth_eps",
        "max_chart_loss", "subdivision", "rate", "seq_scales", "loss_scale", "dynamic_minibatch",
        "optimized_memory", "workspace_size_limit_MB", "adversarial_lr", "attention", "gaussian_noise",
        "contrastive", "unsupervised", "label", "use_cuda_graph", "ema_alpha", "hierarchy",
    ]

    static func parse(_ section: CfgSection) throws -> NetConfig {
        let width = try section.int("width", default: 0)
        let height = try section.int("height", default: 0)
        let channels = try section.int("channels", default: 0)
        for (key, value) in [("width", width), ("height", height), ("channels", channels)] where value <= 0 {
            throw CfgError.invalidValue(section.location(key), value: String(value), expected: "a positive \(key) in [net]")
        }
        return NetConfig(width: width, height: height, channels: channels)
    }

    static let knownKeys: Set<String> = trainingKeys.union(["width", "height", "channels", "max_batches"])
}
