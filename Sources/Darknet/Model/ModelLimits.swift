/// Limits on what a model's files may ask for, checked while they are read, before any shape
/// arithmetic or allocation, so a hostile or broken file gets a typed error naming its line
/// instead of an integer overflow or a huge allocation. The defaults fit every published
/// darknet cfg; pass a value with a limit raised to read larger models.
public struct ModelLimits: Sendable, Hashable {
    /// Largest cfg file (real cfgs are under 20 KB; yolov4-p6 is about 30 KB).
    public var maximumCfgBytes = 4 << 20
    /// Largest names file (the largest published list, extraction22k's 21842 names, is about 300 KB).
    public var maximumNamesBytes = 16 << 20
    /// Largest input width or height.
    public var maximumInputSide = 16384
    /// Largest layer count.
    public var maximumLayers = 10000
    /// Largest element count of one layer output.
    public var maximumTensorElements = 1 << 31
    /// Largest `filters`, `classes`, connected `output` and layer output channel count.
    /// yolo9000's [region] has 28269 filters; everything else published stays ≤ 4096.
    public var maximumChannels = 1 << 16
    /// Largest kernel `size`, `stride` and `padding` (no kernel can be larger than the input).
    public var maximumKernelSide = 16384
    /// Largest `num` (anchor pairs) of a [yolo] / [region] section (published cfgs: ≤ 9).
    public var maximumAnchors = 4096
    /// Largest parameter count (floats) of one layer: 2^31 floats = 8 GiB.
    public var maximumLayerParameters = 1 << 31
    /// Largest parameter count (floats) of the whole model: 2^30 floats = 4 GiB (yolov4-p6,
    /// the largest published darknet model, has about 0.3 × 2^30). Checked after the cfg is
    /// read, before any weights are made or read.
    public var maximumModelParameters = 1 << 30
    /// Largest activation memory (arena and workspace) a network may allocate.
    public var maximumActivationBytes = 8 << 30

    public init() {}
}

extension ModelDescription {
    /// Range checks of the integer keys that size a layer (`LayerType.limitedKeys`), before it is parsed.
    static func checkLimits(_ section: CfgSection, _ checks: [(key: String, limit: Int)]) throws {
        for (key, limit) in checks {
            let value = try section.int(key, default: 0)
            if value > limit {
                throw CfgError.invalidValue(section.location(key), value: String(value),
                                            expected: "\(key) ≤ \(limit) (ModelLimits)")
            }
        }
    }

    /// Refuses a layer whose parameters (weights to read and keep) exceed
    /// `limits.maximumLayerParameters` (`LayerType.parameterCount`, computed without overflow),
    /// naming the floats it would need.
    static func checkParameters(_ kind: Layer.Kind, input: TensorShape, at location: CfgLocation, layer: Int,
                                limits: ModelLimits) throws {
        guard let (count, key) = kind.type.parameterCount(input: input), count > limits.maximumLayerParameters else { return }
        var place = location
        place.key = key
        let needed = count == Int.max ? "more than \(Int.max)" : String(count)
        throw CfgError.shapeMismatch(place, layer: layer,
                                     detail: "\(needed) weights (\(input) input), over the limit of \(limits.maximumLayerParameters) floats per layer (ModelLimits.maximumLayerParameters)")
    }

    /// Refuses a model whose layers' parameters together exceed `limits.maximumModelParameters`,
    /// naming the layer where the running total passes it.
    static func checkTotalParameters(_ layers: [Layer], limits: ModelLimits) throws {
        var total = 0
        for layer in layers {
            guard let (count, key) = layer.kind.type.parameterCount(input: layer.input) else { continue }
            total = total > Int.max - count ? Int.max : total + count
            guard total > limits.maximumModelParameters else { continue }
            var place = layer.location
            place.key = key
            let sum = total == Int.max ? "more than \(Int.max)" : String(total)
            throw CfgError.shapeMismatch(place, layer: layer.index, detail: "the model's weights pass "
                + "\(limits.maximumModelParameters) floats here (\(sum) so far; ModelLimits.maximumModelParameters)")
        }
    }
}
