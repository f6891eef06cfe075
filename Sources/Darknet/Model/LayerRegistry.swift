/// Every cfg section the engine runs: one line per layer type (its file in `Layers/` says the
/// rest). `ModelDescription` parses each section through the type its name picks here, and
/// `SupportTable` lists them.
enum LayerRegistry {
    static let types: [any LayerType.Type] = [
        Convolutional.self,
        Maxpool.self,
        Upsample.self,
        Route.self,
        Shortcut.self,
        Yolo.self,
        Avgpool.self,
        Connected.self,
        Softmax.self,
        Dropout.self,
        Batchnorm.self,
        Cost.self,
        Sam.self,
        ScaleChannels.self,
        Reorg.self,
        Region.self,
        Crop.self,
        Local.self,
        GaussianYolo.self,
        Reorg3d.self,
        LocalAvgpool.self,
        Contrastive.self,
        Empty.self,
        ActivationLayer.self,
        Implicit.self,
        DetectionLayer.self,
        CRNN.self,
    ]

    /// The type a section name (or alias) picks.
    static let byName: [String: any LayerType.Type] = {
        var table: [String: any LayerType.Type] = [:]
        for type in types {
            for name in type.sectionNames {
                precondition(table[name] == nil, "LayerRegistry: [\(name)] registered twice")
                table[name] = type
            }
        }
        return table
    }()
}
