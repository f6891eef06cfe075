import Foundation
import YOLO

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
        case gaussianYolo(GaussianYolo)
        case reorg3d(Reorg3d)
        case localAvgpool(LocalAvgpool)
        case contrastive(Contrastive)
        case empty(Empty)
        case activation(ActivationLayer)
        case implicit(Implicit)
        case detection(DetectionLayer)
        case crnn(CRNN)
    }

    public var index: Int
    public var kind: Kind
    /// Shape of the layer it reads (the previous layer; for a route, the first source).
    public var input: TensorShape
    public var output: TensorShape
    /// Where its section starts in the cfg.
    public var location: CfgLocation

    /// The cfg section name (`convolutional`, `route`…).
    public var typeName: String { type(of: kind.type).name }

    /// Layers whose outputs this one reads, besides the previous one.
    public var references: [Int] { kind.type.references }

    /// True when this layer reads the previous layer's output (all but `[route]` and `[implicit]`).
    public var readsPrevious: Bool {
        if case .route = kind { return false }
        if case .implicit = kind { return false }
        return true
    }

    public var bflops: Double { kind.type.bflops(self) }

    /// AlexeyAB's `l.bflops` for the layer (`LayerType.alexeyABBflops`): what his table prints
    /// and adds up, which counts maxpools and shortcuts too.
    public var alexeyABBflops: Float { kind.type.alexeyABBflops(self) }

    /// The layer as a detection head (`LayerType.detectionHead`), nil for other layers.
    var detectionHead: (any DetectionHeadLayer)? { kind.type.detectionHead }

    /// True for the heads whose outputs `Detector` decodes: `[yolo]`, `[Gaussian_yolo]`, `[region]`, `[detection]`.
    public var isDetectionHead: Bool { detectionHead != nil }

    /// The class tree a detection head scores by (`[region] tree=`, YOLO9000); nil for other
    /// layers and for heads without one.
    public var headClassTree: ClassTree? { detectionHead?.classTree }

    /// Its row in darknet's layer table after the index column (`LayerType.tableRow`), in the
    /// layout of `dialect`'s darknet; AlexeyAB's rows of some layers have several lines.
    public func tableRow(dialect: CfgDialect) -> String { kind.type.tableRow(self, dialect: dialect) }

    /// Its section's key options in a few words (`LayerType.optionsSummary`): `32 3x3/1 leaky`,
    /// `2x2/2`, `layers 85 61`, `from 33`; empty when nothing sizes it.
    public var optionsSummary: String { kind.type.optionsSummary(self) }

    /// Input and output as darknet's table rows print them: `%4d x%4d x%4d   ->  %4d x%4d x%4d`
    /// (width, height, channels).
    var tableShapes: String {
        String(format: "%4d x%4d x%4d   ->  %4d x%4d x%4d", input.width, input.height, input.channels,
               output.width, output.height, output.channels)
    }
}

extension Layer.Kind {
    /// The layer's own type, which answers everything about it (`LayerType`).
    var type: any LayerType {
        switch self {
        case .convolutional(let layer): layer
        case .maxpool(let layer): layer
        case .upsample(let layer): layer
        case .route(let layer): layer
        case .shortcut(let layer): layer
        case .yolo(let layer): layer
        case .avgpool(let layer): layer
        case .connected(let layer): layer
        case .softmax(let layer): layer
        case .dropout(let layer): layer
        case .batchnorm(let layer): layer
        case .cost(let layer): layer
        case .sam(let layer): layer
        case .scaleChannels(let layer): layer
        case .reorg(let layer): layer
        case .region(let layer): layer
        case .crop(let layer): layer
        case .local(let layer): layer
        case .gaussianYolo(let layer): layer
        case .reorg3d(let layer): layer
        case .localAvgpool(let layer): layer
        case .contrastive(let layer): layer
        case .empty(let layer): layer
        case .activation(let layer): layer
        case .implicit(let layer): layer
        case .detection(let layer): layer
        case .crnn(let layer): layer
        }
    }
}
