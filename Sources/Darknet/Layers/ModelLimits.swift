/// Limits checked while a cfg is read, before any shape arithmetic or allocation, so a hostile
/// or broken cfg gets a `CfgError` with its line instead of an integer overflow or a huge
/// allocation. Defaults fit every published darknet cfg; each is a static var to raise.
extension ModelDescription {
    /// Largest `filters`, `classes`, connected `output` and layer output channel count.
    /// yolo9000's [region] has 28269 filters; everything else published stays ≤ 4096.
    nonisolated(unsafe) public static var maximumChannels = 1 << 16
    /// Largest kernel `size`, `stride` and `padding` (no kernel can be larger than the input).
    nonisolated(unsafe) public static var maximumKernelSide = 16384
    /// Largest `num` (anchor pairs) of a [yolo] / [region] section (published cfgs: ≤ 9).
    nonisolated(unsafe) public static var maximumAnchors = 4096
    /// Largest parameter count (floats) of one layer: 2^31 floats = 8 GiB.
    nonisolated(unsafe) public static var maximumLayerParameters = 1 << 31

    /// Range checks of the integer keys that size a layer, by section name (before parsing it).
    static func checkLimits(_ section: CfgSection) throws {
        var limits: [(String, Int)] = []
        switch section.name {
        case "convolutional", "conv":
            limits = [("filters", maximumChannels), ("size", maximumKernelSide), ("stride", maximumKernelSide),
                      ("stride_x", maximumKernelSide), ("stride_y", maximumKernelSide), ("dilation", maximumKernelSide),
                      ("padding", maximumKernelSide), ("groups", maximumChannels)]
        case "maxpool", "max":
            limits = [("size", maximumKernelSide), ("stride", maximumKernelSide), ("padding", maximumKernelSide)]
        case "local":
            limits = [("filters", maximumChannels), ("size", maximumKernelSide), ("stride", maximumKernelSide)]
        case "crop":
            limits = [("crop_height", ModelDescription.maximumInputSide), ("crop_width", ModelDescription.maximumInputSide)]
        case "upsample", "reorg":
            limits = [("stride", maximumKernelSide)]
        case "yolo", "region":
            limits = [("num", maximumAnchors), ("classes", maximumChannels)]
        case "connected", "conn":
            limits = [("output", maximumChannels)]
        default:
            return
        }
        for (key, limit) in limits {
            let value = try section.int(key, default: 0)
            if value > limit {
                throw CfgError.invalidValue(section.location(key), value: String(value),
                                            expected: "\(key) ≤ \(limit) (ModelDescription limit)")
            }
        }
    }

    /// Refuses a layer whose parameters (weights to read and keep) exceed `maximumLayerParameters`,
    /// computed without overflow, naming the floats it would need.
    static func checkParameters(_ kind: Layer.Kind, input: TensorShape, at location: CfgLocation, layer: Int) throws {
        let product: (partialValue: Int, overflow: Bool)
        let key: String
        switch kind {
        case .convolutional(let conv):
            let perGroup = input.channels / conv.groups
            let kernel = conv.size.multipliedReportingOverflow(by: conv.size)
            let fanIn = perGroup.multipliedReportingOverflow(by: kernel.partialValue)
            let total = conv.filters.multipliedReportingOverflow(by: fanIn.partialValue)
            product = (total.partialValue, kernel.overflow || fanIn.overflow || total.overflow)
            key = "filters"
        case .connected(let connected):
            product = connected.outputs.multipliedReportingOverflow(by: input.checkedCount ?? Int.max)
            key = "output"
        case .local(let local):
            // locations × filters × size² × C (the biases are far fewer).
            guard let output = local.outputShape(input: input) else { return }
            let kernel = local.size.multipliedReportingOverflow(by: local.size)
            let block = local.filters.multipliedReportingOverflow(by: kernel.partialValue)
            let perLocation = block.partialValue.multipliedReportingOverflow(by: input.channels)
            let total = perLocation.partialValue.multipliedReportingOverflow(by: output.height * output.width)
            product = (total.partialValue, kernel.overflow || block.overflow || perLocation.overflow || total.overflow)
            key = "filters"
        default:
            return
        }
        if product.overflow || product.partialValue > maximumLayerParameters {
            var place = location
            place.key = key
            let needed = product.overflow ? "more than \(Int.max)" : String(product.partialValue)
            throw CfgError.shapeMismatch(place, layer: layer,
                                         detail: "\(needed) weights (\(input) input), over the limit of \(maximumLayerParameters) floats per layer (ModelDescription.maximumLayerParameters)")
        }
    }
}
