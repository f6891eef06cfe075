/// Shape inference for the sections classifiers use: `[avgpool]`, `[connected]`,
/// `[softmax]`, `[dropout]`, `[batchnorm]`, `[cost]` (kept out of `ModelDescription`'s switch).
extension ModelDescription {
    static let classifierSections: Set<String> = ["avgpool", "avg", "connected", "conn", "softmax", "soft",
                                                  "dropout", "batchnorm", "cost"]

    /// The layer kind, its output shape and its known keys for one of `classifierSections`.
    static func classifierLayer(_ section: CfgSection, input: TensorShape) throws -> (Layer.Kind, TensorShape, Set<String>) {
        switch section.name {
        case "avgpool", "avg":
            let pool = Avgpool()
            return (.avgpool(pool), pool.outputShape(input: input), Avgpool.keys)
        case "connected", "conn":
            let connected = try Connected.parse(section)
            return (.connected(connected), connected.outputShape(input: input), Connected.keys)
        case "softmax", "soft":
            return (.softmax(try Softmax.parse(section, inputCount: input.count)), input, Softmax.keys)
        case "dropout":
            return (.dropout(try Dropout.parse(section)), input, Dropout.keys)
        case "batchnorm":
            return (.batchnorm(Batchnorm()), input, Batchnorm.keys)
        default:
            return (.cost(Cost()), input, Cost.keys)
        }
    }
}
