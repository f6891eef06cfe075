/// A parsed cfg with every layer's shapes inferred (pure: no weights, no buffers).
///
/// Sections `[net]`/`[network]` first, then `[convolutional]`, `[maxpool]`, `[upsample]`,
/// `[route]`, `[shortcut]`, `[yolo]`, and the classifier sections (`ClassifierLayers.swift`). The input size comes from `[net]` unless overridden
/// (Debian's yolov3.cfg says 608; people run it at 416).
public struct ModelDescription: Sendable {
    public var file: String
    public var net: NetConfig
    public var layers: [Layer]
    /// Unknown keys, each with its line (darknet ignores them; so do we, loudly).
    public var warnings: [CfgWarning]
    /// The limits the cfg was read under (networks made from it allocate within them too).
    public let limits: ModelLimits

    public var inputShape: TensorShape {
        TensorShape(channels: net.channels, height: net.height, width: net.width)
    }

    public var totalBflops: Double { layers.reduce(0) { $0 + $1.bflops } }

    /// The sum of darknet's table rows, each printed with three decimals (`%5.3f BFLOPs`):
    /// what a user adding up darknet's table gets (yolov3 at 416: 65.862; yolov3-tiny: 5.567).
    public var roundedBflops: Double { layers.reduce(0) { $0 + ($1.bflops * 1000).rounded() / 1000 } }

    public init(contentsOf path: String, width: Int? = nil, height: Int? = nil, limits: ModelLimits = .init()) throws {
        try self.init(sections: CfgParser.parse(contentsOf: path, maximumBytes: limits.maximumCfgBytes), file: path,
                      width: width, height: height, limits: limits)
    }

    public init(text: String, file: String = "<cfg>", width: Int? = nil, height: Int? = nil, limits: ModelLimits = .init()) throws {
        try self.init(sections: CfgParser.parse(text: text, file: file, maximumBytes: limits.maximumCfgBytes), file: file,
                      width: width, height: height, limits: limits)
    }

    public init(sections: [CfgSection], file: String, width: Int? = nil, height: Int? = nil,
                limits: ModelLimits = .init()) throws {
        guard let first = sections.first else { throw CfgError.empty(file: file) }
        guard first.name == "net" || first.name == "network" else { throw CfgError.missingNetSection(file: file) }
        if sections.count - 1 > limits.maximumLayers {
            throw CfgError.unsupported(CfgLocation(file: file, line: sections[limits.maximumLayers + 1].line),
                                       what: "more than \(limits.maximumLayers) layers")
        }
        var net = try NetConfig.parse(first)
        if let width { net.width = width }
        if let height { net.height = height }
        for (key, value) in [("width", net.width), ("height", net.height)] where value < 1 || value > limits.maximumInputSide {
            throw CfgError.invalidValue(first.location(key), value: String(value),
                                        expected: "an input \(key) in 1...\(limits.maximumInputSide)")
        }
        if net.channels > 4096 {
            throw CfgError.invalidValue(first.location("channels"), value: String(net.channels), expected: "channels ≤ 4096")
        }
        self.file = file
        self.limits = limits
        self.net = net
        self.layers = []
        self.warnings = Self.unknownKeys(in: first, known: NetConfig.knownKeys)
        guard sections.count > 1 else { throw CfgError.noLayers(file: file) }
        for section in sections.dropFirst() {
            try appendLayer(section)
        }
    }

    private mutating func appendLayer(_ section: CfgSection) throws {
        let index = layers.count
        let input = layers.last?.output ?? inputShape
        let here = CfgLocation(file: section.file, line: section.line, section: section.name)
        let kind: Layer.Kind
        var layerInput = input
        let output: TensorShape?
        let known: Set<String>
        try Self.checkLimits(section, limits)
        switch section.name {
        case "convolutional", "conv":
            let conv = try Convolutional.parse(section)
            if input.channels % conv.groups != 0 {
                throw CfgError.invalidValue(section.location("groups"), value: String(conv.groups),
                                            expected: "a divisor of the \(input.channels) input channels")
            }
            kind = .convolutional(conv)
            output = conv.outputShape(input: input)
            if output == nil {
                throw CfgError.inputTooSmall(here, layer: index, detail: "\(input) with size=\(conv.size) stride=\(conv.stride)\(conv.strideY == conv.stride ? "" : " stride_y=\(conv.strideY)") padding=\(conv.padding)")
            }
            known = Convolutional.keys
        case "maxpool", "max":
            let pool = try Maxpool.parse(section, limits: limits)
            kind = .maxpool(pool)
            output = pool.outputShape(input: input)
            if output == nil, let outChannels = pool.depthChannels {
                throw CfgError.shapeMismatch(section.location("out_channels"), layer: index,
                                             detail: "maxpool_depth with out_channels=\(outChannels) needs at least that many input channels, got \(input)")
            }
            if output == nil {
                throw CfgError.inputTooSmall(here, layer: index, detail: "\(input) with size=\(pool.size) padding=\(pool.padding)")
            }
            known = Maxpool.keys
        case "upsample":
            let upsample = try Upsample.parse(section)
            kind = .upsample(upsample)
            output = upsample.outputShape(input: input)
            if output == nil {
                throw CfgError.shapeMismatch(section.location("stride"), layer: index,
                                             detail: "downsampling \(input) by \(upsample.stride) needs a height and width divisible by it")
            }
            known = Upsample.keys
        case "route":
            let route = try Route.parse(section, index: index)
            let shapes = route.sources.map { layers[$0].output }
            kind = .route(route)
            layerInput = shapes[0]
            output = route.outputShape(sourceShapes: shapes)
            if output == nil {
                let listed = zip(route.sources, shapes).map { "layer \($0.0): \($0.1)" }.joined(separator: ", ")
                throw CfgError.shapeMismatch(section.location("layers"), layer: index,
                                             detail: "route sources differ in width × height (\(listed))")
            }
            known = Route.keys
        case "shortcut":
            let shortcut = try Shortcut.parse(section, index: index)
            let sourceShapes = shortcut.sources.map { layers[$0].output }
            kind = .shortcut(shortcut)
            output = shortcut.outputShape(input: input, sourceShapes: sourceShapes)
            if output == nil {
                let listed = zip(shortcut.sources, sourceShapes).map { "layer \($0.0) (\($0.1))" }.joined(separator: ", ")
                throw CfgError.shapeMismatch(section.location("from"), layer: index, detail: shortcut.isMultilayer
                    ? "shortcut adds \(listed) to the previous layer (\(input)); with several from layers or weights all need its width and height"
                    : "shortcut adds \(listed) to the previous layer (\(input)); their width and height ratios must agree")
            }
            known = Shortcut.keys
        case "yolo":
            let yolo = try Yolo.parse(section)
            if input.channels != yolo.expectedChannels {
                let previous = layers.last
                let location: CfgLocation
                if let previous, case .convolutional = previous.kind {
                    location = CfgLocation(file: previous.location.file, line: previous.location.line,
                                           section: previous.location.section, key: "filters")
                } else {
                    location = here
                }
                throw CfgError.filtersMismatch(location, layer: max(index - 1, 0), filters: input.channels,
                                               expected: yolo.expectedChannels)
            }
            kind = .yolo(yolo)
            output = input
            known = Yolo.keys
        case "sam":
            let sam = try Sam.parse(section, index: index)
            kind = .sam(sam)
            output = sam.outputShape(input: input, sourceShape: layers[sam.source].output)
            if output == nil {
                throw CfgError.shapeMismatch(section.location("from"), layer: index,
                                             detail: "sam multiplies layer \(sam.source) (\(layers[sam.source].output)) by the previous layer (\(input)); the shapes must match")
            }
            known = Sam.keys
        case "scale_channels":
            let scale = try ScaleChannels.parse(section, index: index)
            kind = .scaleChannels(scale)
            output = scale.outputShape(input: input, sourceShape: layers[scale.source].output)
            if output == nil {
                throw CfgError.shapeMismatch(section.location("from"), layer: index,
                                             detail: "scale_channels scales layer \(scale.source) (\(layers[scale.source].output)) by the previous layer (\(input)), which must be C×1×1 (1×H×W with scale_wh=1)")
            }
            known = ScaleChannels.keys
        case "local":
            let local = try Local.parse(section)
            kind = .local(local)
            output = local.outputShape(input: input)
            if output == nil {
                throw CfgError.inputTooSmall(here, layer: index, detail: "\(input) with size=\(local.size) pad=0")
            }
            known = Local.keys
        case "crop":
            let crop = try Crop.parse(section)
            kind = .crop(crop)
            output = crop.outputShape(input: input)
            if output == nil {
                throw CfgError.inputTooSmall(here, layer: index, detail: "\(input) is smaller than the \(crop.height)×\(crop.width) crop")
            }
            known = Crop.keys
        case "reorg":
            let reorg = try Reorg.parse(section)
            kind = .reorg(reorg)
            output = reorg.outputShape(input: input)
            if output == nil {
                throw CfgError.shapeMismatch(section.location("stride"), layer: index,
                                             detail: "reorg with stride=\(reorg.stride)\(reorg.reverse ? " reverse=1" : "") needs channels divisible by stride² and \(reorg.reverse ? "" : "width and height divisible by stride, ")got \(input)")
            }
            known = Reorg.keys
        case "region":
            let region = try Region.parse(section)
            if input.channels != region.expectedChannels {
                let location: CfgLocation
                if let previous = layers.last, case .convolutional = previous.kind {
                    location = CfgLocation(file: previous.location.file, line: previous.location.line,
                                           section: previous.location.section, key: "filters")
                } else {
                    location = here
                }
                throw CfgError.filtersMismatch(location, layer: max(index - 1, 0), filters: input.channels,
                                               expected: region.expectedChannels)
            }
            kind = .region(region)
            output = input
            known = Region.keys
        case let name where Self.classifierSections.contains(name):
            let inferred = try Self.classifierLayer(section, input: input)
            (kind, output, known) = (inferred.0, inferred.1, inferred.2)
        default:
            throw CfgError.unknownSection(here, name: section.name)
        }
        try Self.checkParameters(kind, input: layerInput, at: here, layer: index, limits: limits)
        guard let output, let count = output.checkedCount, count <= limits.maximumTensorElements, count > 0,
              output.channels <= limits.maximumChannels else {
            throw CfgError.shapeMismatch(here, layer: index, detail: "output shape \(output.map(String.init(describing:)) ?? "?") is empty or too large")
        }
        // Location of the section itself, refined with the exact line of each key later when needed.
        var location = here
        location.key = nil
        layers.append(Layer(index: index, kind: kind, input: layerInput, output: output, location: location))
        warnings += Self.unknownKeys(in: section, known: known)
    }

    static func unknownKeys(in section: CfgSection, known: Set<String>) -> [CfgWarning] {
        section.options.filter { !known.contains($0.key) }.map {
            CfgWarning(location: CfgLocation(file: section.file, line: $0.line, section: section.name, key: $0.key),
                       message: "unknown key '\($0.key)' in [\(section.name)] is ignored")
        }
    }
}
