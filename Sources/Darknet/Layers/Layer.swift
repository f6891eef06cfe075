/// One layer of a network: what its cfg section says plus the shapes inference gave it.
public struct Layer: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case convolutional(Convolutional)
        case maxpool(Maxpool)
        case upsample(Upsample)
        case route(Route)
        case shortcut(Shortcut)
        case yolo(Yolo)
        case avgpool(Avgpool)
        case connected(Connected)
        case softmax(Softmax)
        case dropout(Dropout)
        case batchnorm(Batchnorm)
        case cost(Cost)
        case sam(Sam)
        case scaleChannels(ScaleChannels)
        case reorg(Reorg)
        case region(Region)
        case crop(Crop)
        case local(Local)
    }

    public var index: Int
    public var kind: Kind
    /// Shape of the layer it reads (the previous layer; for a route, the first source).
    public var input: TensorShape
    public var output: TensorShape
    /// Where its section starts in the cfg.
    public var location: CfgLocation

    /// The cfg section name (`convolutional`, `route`…).
    public var typeName: String {
        switch kind {
        case .convolutional: return "convolutional"
        case .maxpool: return "maxpool"
        case .upsample: return "upsample"
        case .route: return "route"
        case .shortcut: return "shortcut"
        case .yolo: return "yolo"
        case .avgpool: return "avgpool"
        case .connected: return "connected"
        case .softmax: return "softmax"
        case .dropout: return "dropout"
        case .batchnorm: return "batchnorm"
        case .cost: return "cost"
        case .sam: return "sam"
        case .scaleChannels: return "scale_channels"
        case .reorg: return "reorg"
        case .region: return "region"
        case .crop: return "crop"
        case .local: return "local"
        }
    }

    /// Layers whose outputs this one reads, besides the previous one.
    public var references: [Int] {
        switch kind {
        case .route(let route): return route.sources
        case .shortcut(let shortcut): return shortcut.sources
        case .sam(let sam): return [sam.source]
        case .scaleChannels(let scale): return [scale.source]
        default: return []
        }
    }

    /// True when this layer reads the previous layer's output.
    public var readsPrevious: Bool {
        if case .route = kind { return false }
        return true
    }

    public var bflops: Double {
        switch kind {
        case .convolutional(let conv): return conv.bflops(input: input, output: output)
        default: return 0
        }
    }
}
