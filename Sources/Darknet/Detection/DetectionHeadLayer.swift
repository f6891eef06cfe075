import YOLO

/// What a detection head layer answers, so that `Detector`, `ModelDescription.nmsKind` and
/// `ModelDescription.inputFitting` loop over a network's heads without knowing their kinds.
/// Each head section (`[yolo]`, `[Gaussian_yolo]`, `[region]`, `[detection]`) adopts it in its
/// own file in `Layers/` and hands itself out through `LayerType.detectionHead`; a new head is
/// one more adoption there, which the compiler then asks for in full.
///
/// (Named apart from the `YOLO` module's `DetectionHead`, the decoder's description of a
/// `[yolo]` or `[region]` output, which a head may build to decode itself.)
protocol DetectionHeadLayer: Sendable {
    /// Classes each box is scored for: what a names file must cover (`Detector.classCount`).
    var classes: Int { get }
    /// The NMS `detector test` runs when this is the network's last head, and why; `place`
    /// names the layer ("layer 106, line 780"). AlexeyAB's `test_detector` keeps the `nms_kind`
    /// of the last head it meets; a head without that key gives `default` (`do_nms_sort`).
    func nms(at place: String) -> (kind: NMSKind, reason: String)
    /// How images are fitted to the network when `[net] letter_box` is not set, when this
    /// head's darknet decides it itself (YOLOv1's `yolo test` resizes); nil leaves it to the
    /// cfg's dialect (`InputFitting.decide`).
    var inputFitting: InputFitting? { get }
    /// The class tree its scores form (`[region] tree=`, YOLO9000), nil without one.
    var classTree: ClassTree? { get }
    /// True when its darknet's `correct_*_boxes` scales w and h by `1/ratio` in `dialect`
    /// (AlexeyAB's `correct_yolo_boxes`, which his `[yolo]` and `[region]` go through), false
    /// when by `netw/new_w` (pjreddie's, and AlexeyAB's `[Gaussian_yolo]` and YOLOv1 `[detection]`).
    func correctsByReciprocalRatio(in dialect: CfgDialect) -> Bool
    /// The candidates of one image's output of this head (`values`: `shape.count` floats, the
    /// layer's output as its forward leaves it), in its darknet's order, boxes relative to the
    /// network input (`Detector` maps them to the image with `correctBoxes`). Throws the
    /// decoder's error when the output does not match the head.
    func decode(_ values: UnsafeBufferPointer<Float>, shape: TensorShape, _ decoding: HeadDecoding) throws -> [Candidate]
}

extension DetectionHeadLayer {
    var inputFitting: InputFitting? { nil }
    var classTree: ClassTree? { nil }
}

/// What decoding a head's output needs besides the output: the network input size (boxes are
/// relative to it), the probability a class must exceed, and the dialect and `-hier` threshold
/// a class tree is walked by (`TreeDecoding`).
struct HeadDecoding {
    var networkWidth: Int
    var networkHeight: Int
    /// darknet's `-thresh`: a class probability at or below it is stored as 0.
    var threshold: Float
    var dialect: CfgDialect
    /// pjreddie's `-hier` (`DetectorOptions.hierarchyThreshold`).
    var hierarchyThreshold: Float

    /// How a `[region]` with a class tree picks its class in `dialect`'s darknet.
    var treeDecoding: TreeDecoding {
        switch dialect {
        case .pjreddie: .pjreddie(hierarchyThreshold: hierarchyThreshold)
        case .alexeyAB: .alexeyAB
        }
    }
}
