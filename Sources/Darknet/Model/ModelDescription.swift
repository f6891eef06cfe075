import YOLO

/// A parsed cfg with every layer's shapes inferred (pure: no weights, no buffers).
///
/// Sections: `[net]`/`[network]` first, then one layer per section, of the types
/// `LayerRegistry` lists. The input size comes from `[net]` unless overridden (Debian's
/// yolov3.cfg says 608; people run it at 416).
public struct ModelDescription: Sendable {
    public var file: String
    public var net: NetConfig
    public var layers: [Layer]
    /// Unknown keys, each with its line (darknet ignores them; so do we, loudly).
    public var warnings: [CfgWarning]
    /// The limits the cfg was read under (networks made from it allocate within them too).
    public let limits: ModelLimits
    /// The darknet the cfg was written for, and what in it says so (`DialectDecision.decide`).
    public let dialect: DialectDecision
    /// SHA-256 of the cfg's bytes (of its text's UTF-8 when made from text), what a calibration
    /// is checked against (`Calibration`); nil for a model made from sections. A caller that
    /// read the file itself may set it from the bytes it read.
    public var sourceSHA256: String?

    public var inputShape: TensorShape {
        TensorShape(channels: net.channels, height: net.height, width: net.width)
    }

    public var totalBflops: Double { layers.reduce(0) { $0 + $1.bflops } }

    /// The sum of darknet's table rows, each printed with three decimals (`%5.3f BFLOPs`):
    /// what a user adding up darknet's table gets (yolov3 at 416: 65.862; yolov3-tiny: 5.567).
    public var roundedBflops: Double { layers.reduce(0) { $0 + ($1.bflops * 1000).rounded() / 1000 } }

    /// AlexeyAB's `Total BFLOPS`: the Float sum, in layer order, of every positive `l.bflops`
    /// (`parse_network_cfg_custom`), maxpools and shortcuts included (yolov4-tiny at 416: 6.910,
    /// where pjreddie's convolutions-only count gives 6.905).
    public var alexeyABTotalBflops: Float {
        layers.reduce(Float(0)) { total, layer in
            let value = layer.alexeyABBflops
            return value > 0 ? total + value : total
        }
    }

    public init(contentsOf path: String, width: Int? = nil, height: Int? = nil, limits: ModelLimits = .init()) throws {
        let (sections, sha256) = try CfgParser.parseFile(path, maximumBytes: limits.maximumCfgBytes)
        try self.init(sections: sections, file: path, width: width, height: height, limits: limits)
        sourceSHA256 = sha256
    }

    public init(text: String, file: String = "<cfg>", width: Int? = nil, height: Int? = nil, limits: ModelLimits = .init()) throws {
        try self.init(sections: CfgParser.parse(text: text, file: file, maximumBytes: limits.maximumCfgBytes), file: file,
                      width: width, height: height, limits: limits)
        sourceSHA256 = SHA256.hex(Array(text.utf8))
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
        self.dialect = DialectDecision.decide(sections)
        self.net = net
        self.layers = []
        self.warnings = Self.unknownKeys(in: first, known: NetConfig.knownKeys) + first.duplicateKeyWarnings + first.notes.all
        guard sections.count > 1 else { throw CfgError.noLayers(file: file) }
        for section in sections.dropFirst() {
            try appendLayer(section)
        }
        try Self.checkTotalParameters(layers, limits: limits)
        applyBinaryOutputs()
    }

    /// AlexeyAB's `bin_output`: an XNOR layer's activation becomes linear, unless his parser
    /// turned the flag off because a `[route]` reads the layer, or a `[shortcut]`,
    /// `[scale_channels]` or `[sam]` reads it or follows it (parse_network_cfg_custom).
    private mutating func applyBinaryOutputs() {
        var kept = Set<Int>()
        for layer in layers {
            if case .route(let route) = layer.kind { kept.formUnion(route.sources) }
            if case .shortcut(let shortcut) = layer.kind { kept.formUnion(shortcut.sources + [layer.index - 1]) }
            if case .scaleChannels(let scale) = layer.kind { kept.formUnion([scale.source, layer.index - 1]) }
            if case .sam(let sam) = layer.kind { kept.formUnion([sam.source, layer.index - 1]) }
        }
        for index in layers.indices where !kept.contains(index) {
            if case .convolutional(var conv) = layers[index].kind, conv.binOutput {
                conv.activation = .linear
                layers[index].kind = .convolutional(conv)
            }
        }
    }

    /// Parses `section` through the layer type its name picks (`LayerRegistry`) and appends it:
    /// its sizing keys range-checked first, its parameters' count checked before any
    /// allocation, its output shape within the limits; unknown keys become warnings.
    private mutating func appendLayer(_ section: CfgSection) throws {
        let index = layers.count
        let here = CfgLocation(file: section.file, line: section.line, section: section.name)
        guard let type = LayerRegistry.byName[section.name] else { throw CfgError.unknownSection(here, name: section.name) }
        try Self.checkLimits(section, type.limitedKeys(limits))
        let context = LayerContext(index: index, input: layers.last?.output ?? inputShape, layers: layers, limits: limits,
                                   dialect: dialect.dialect, location: here)
        let parsed = try type.layer(section, in: context)
        try Self.checkParameters(parsed.kind, input: parsed.input, at: here, layer: index, limits: limits)
        let output = parsed.output
        guard let count = output.checkedCount, count <= limits.maximumTensorElements, count > 0,
              output.channels <= limits.maximumChannels else {
            throw CfgError.shapeMismatch(here, layer: index, detail: "output shape \(output) is empty or too large")
        }
        layers.append(Layer(index: index, kind: parsed.kind, input: parsed.input, output: output, location: here))
        warnings += Self.unknownKeys(in: section, known: type.keys) + section.duplicateKeyWarnings + section.notes.all
    }

    static func unknownKeys(in section: CfgSection, known: Set<String>) -> [CfgWarning] {
        section.options.filter { !known.contains($0.key) }.map {
            CfgWarning(location: CfgLocation(file: section.file, line: $0.line, section: section.name, key: $0.key),
                       message: "unknown key '\($0.key)' in [\(section.name)] is ignored")
        }
    }
}

extension ModelDescription {
    /// darknet's `net->hierarchy`: the class tree of the last `[softmax]` (nil when that one has
    /// none, as each parsed `[softmax]` overwrites it), which `classifier predict` applies.
    public var hierarchy: ClassTree? {
        for layer in layers.reversed() {
            if case .softmax(let softmax) = layer.kind { return softmax.tree }
        }
        return nil
    }

    /// Convolutions that use another's parameters (`share_index`): layer index → the index of
    /// the layer that holds them.
    public var sharedConvolutions: [Int: Int] {
        var shared: [Int: Int] = [:]
        for layer in layers {
            if case .convolutional(let conv) = layer.kind, let source = conv.sharesWeightsOf { shared[layer.index] = source }
        }
        return shared
    }
}
