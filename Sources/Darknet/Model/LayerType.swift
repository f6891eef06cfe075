import Kernels

/// What every layer type answers. Each cfg section is one conforming type, in its own file in
/// `Layers/` — its keys, how it parses and what shape it gives, what it reads from a weights
/// file, the workspace it needs, its forward pass and how `summary` and `benchmark` describe
/// it — and one line in `LayerRegistry.types` (with its case in `Layer.Kind`, which the
/// compiler then asks for in `Layer.Kind.type`). The DocC article "Adding a layer" walks
/// through one such file.
protocol LayerType: Sendable, Hashable {
    /// The section's name and its aliases, the canonical name first (`convolutional`, `conv`).
    static var sectionNames: [String] { get }
    /// Every key the section knows; a key it does not know is a warning with its line.
    static var keys: Set<String> { get }
    /// The keys read and implemented; the other `keys` are training-only or `rejectedKeys`.
    static var honouredKeys: Set<String> { get }
    /// Keys that are a typed error unless darknet's default, each with a value that triggers it.
    static var rejectedKeys: [String: String] { get }
    /// Integer keys that size the layer, with their limit: range-checked before the section is
    /// parsed, so no shape arithmetic overflows.
    static func limitedKeys(_ limits: ModelLimits) -> [(key: String, limit: Int)]
    /// The layer `section` describes at its place in the network, or a typed error naming the
    /// key and line when the section is invalid or does not fit what it reads.
    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer

    /// Layers whose outputs this one reads besides the previous one (`[route]`, `[shortcut]`…).
    var references: [Int] { get }
    /// The layer as a detection head whose output `Detector` decodes (itself, for `[yolo]`,
    /// `[Gaussian_yolo]`, `[region]` and `[detection]`); nil for every other layer.
    var detectionHead: (any DetectionHeadLayer)? { get }
    /// Floats of parameters the layer holds on `input` (`Int.max` when that count overflows),
    /// and the key that sizes them, or nil without parameters: checked against
    /// `ModelLimits.maximumLayerParameters` before anything is allocated.
    func parameterCount(input: TensorShape) -> (count: Int, key: String)?
    /// What the layer reads from a weights file, in order (`next`: the layer after it, which
    /// the synthetic weights' scales look at).
    func weightsParts(_ layer: Layer, next: Layer?) -> [WeightsPart]
    /// Its parameters from the arrays `weightsParts` listed (`transposed`: the file is of the
    /// kind whose connected weights darknet transposes).
    func weights(_ layer: Layer, from arrays: consuming [[Float]], transposed: Bool) -> LayerWeights?
    /// Floats of the network's one workspace the layer needs (`context`: the batch, the
    /// kernels, a convolution's method).
    func workspaceCount(_ layer: Layer, _ context: PlanningContext) -> Int
    /// darknet's BFLOPs for the layer (0 but for convolutions).
    func bflops(_ layer: Layer) -> Double
    /// AlexeyAB's `l.bflops`, a Float: what his table prints for the layer and adds to its
    /// total (`AlexeyABTable`); `bflops` by default, more for the layers he also counts.
    func alexeyABBflops(_ layer: Layer) -> Float
    /// Runs the layer on a batch; `timer` (profiling) gets a convolution's phases.
    func forward(_ run: LayerRun, timer: inout PhaseTimer?)
    /// Its row in `summary`'s layer table after the index column: the line its darknet's
    /// `make_*_layer` prints (`conv     32  3 x 3 / 1   416 x 416 x   3   ->   416 x 416 x  32  0.299 BFLOPs`).
    /// `dialect` is the cfg's: the darknet whose table layout the row follows (AlexeyAB's rows
    /// are his `make_*_layer` lines, some of several lines; rows of layers only his cfgs reach
    /// keep his marks in pjreddie's layout: `convX`, `max-depth`).
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String
    /// The section's key options in a few words, for `benchmark`'s options column
    /// (`32 3x3/1 leaky`, `2x2/2`, `layers 85 61`, `from 33`); empty when nothing sizes it.
    func optionsSummary(_ layer: Layer) -> String
}

extension LayerType {
    static var rejectedKeys: [String: String] { [:] }
    static func limitedKeys(_ limits: ModelLimits) -> [(key: String, limit: Int)] { [] }
    var references: [Int] { [] }
    var detectionHead: (any DetectionHeadLayer)? { nil }
    func parameterCount(input: TensorShape) -> (count: Int, key: String)? { nil }
    func weightsParts(_ layer: Layer, next: Layer?) -> [WeightsPart] { [] }
    func weights(_ layer: Layer, from arrays: consuming [[Float]], transposed: Bool) -> LayerWeights? { nil }
    func workspaceCount(_ layer: Layer, _ context: PlanningContext) -> Int { 0 }
    func bflops(_ layer: Layer) -> Double { 0 }
    func alexeyABBflops(_ layer: Layer) -> Float { Float(bflops(layer)) }
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String { namedRow(layer) }
    /// The row of a layer pjreddie's darknet prints no line for: the section name in 24
    /// columns, then the shapes, aligned with his rows that show them.
    func namedRow(_ layer: Layer) -> String {
        Self.name + String(repeating: " ", count: max(1, 24 - Self.name.count)) + layer.tableShapes
    }
    func optionsSummary(_ layer: Layer) -> String { "" }

    /// The canonical section name.
    static var name: String { sectionNames[0] }
}

/// What a section is parsed against: its place in the network and the layers before it.
struct LayerContext {
    /// The layer's index (0 for the first after `[net]`).
    var index: Int
    /// The previous layer's output (the network input for the first layer).
    var input: TensorShape
    /// The layers before this one.
    var layers: [Layer]
    var limits: ModelLimits
    /// The cfg's dialect (`DialectDecision.decide`, made before any layer is parsed).
    var dialect: CfgDialect
    /// Where the section starts.
    var location: CfgLocation

    /// `location` with the line of `key` when the section sets it.
    func location(_ section: CfgSection, _ key: String) -> CfgLocation { section.location(key) }
}

/// A parsed section: its kind and the shapes it reads and writes.
struct ParsedLayer {
    var kind: Layer.Kind
    /// The shape it reads (the previous layer's output; for a route, its first source's).
    var input: TensorShape
    var output: TensorShape
}

/// One array a layer reads from a weights file, in file order: its name (for errors), its
/// float count, and the uniform range `SyntheticWeights` draws it from (spec v1), times `scale`.
struct WeightsPart {
    var name: String
    var count: Int
    var synthetic: (low: Float, high: Float)
    var scale: Float = 1
    /// A negative value is an error: darknet takes its square root (a variance), and NaN would
    /// reach every output after it.
    var nonNegative = false
}

extension WeightsPart {
    /// The biases every layer with weights reads first: U(−0.1, 0.1) in the synthetic weights.
    static func biases(_ count: Int) -> WeightsPart { WeightsPart(name: "biases", count: count, synthetic: (-0.1, 0.1)) }

    /// The batch-norm statistics darknet stores per channel, in file order: scales (× `scale`
    /// in the synthetic weights), rolling mean, rolling variance.
    static func batchNorm(_ count: Int, scale: Float = 1) -> [WeightsPart] {
        [WeightsPart(name: "scales", count: count, synthetic: (0.8, 1.2), scale: scale),
         WeightsPart(name: "rolling mean", count: count, synthetic: (-0.1, 0.1)),
         WeightsPart(name: "rolling variance", count: count, synthetic: (0.8, 1.2), nonNegative: true)]
    }

    /// Weights of `fanIn` inputs each: He-uniform U(−a, a) with `a = sqrt(6 / fanIn)` in the
    /// synthetic weights, so activations keep their scale through leaky ReLUs.
    static func weights(_ count: Int, fanIn: Int) -> WeightsPart {
        let a = (Float(6) / Float(fanIn)).squareRoot()
        return WeightsPart(name: "weights", count: count, synthetic: (-a, a))
    }
}
