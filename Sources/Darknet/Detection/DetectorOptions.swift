import YOLO

/// How a `Detector` prepares images and filters boxes. Defaults are `darknet detect`'s.
public struct DetectorOptions: Sendable, Hashable {
    public enum NMSMode: String, Sendable, Hashable, CaseIterable {
        /// Within each class, as the cfg's `nms_kind` says (`Detector.nms`): darknet's
        /// `do_nms_sort` by IoU, or AlexeyAB's `diounms_sort` for `greedynms` and `diounms`.
        case perClass = "per-class"
        /// Suppress overlapping boxes whatever their class.
        case agnostic
        /// No suppression.
        case none
    }

    /// Per-class probability (objectness × class score) a detection must exceed (darknet `-thresh`, 0.5).
    public var threshold: Float = 0.5
    /// IoU above which NMS suppresses a box (darknet's 0.45).
    public var nmsThreshold: Float = 0.45
    /// How far a `[region]` with a class tree (YOLO9000) descends: pjreddie's `-hier` (0.5),
    /// read by `TreeDecoding.pjreddie`; AlexeyAB's darknet fixes it at 0.5.
    public var hierarchyThreshold: Float = 0.5
    public var nmsMode: NMSMode = .perClass
    /// Network input size; nil keeps the cfg's `[net]` width/height.
    public var width: Int?
    public var height: Int?
    /// How images are fitted to the network input: nil (the default) as the cfg says
    /// (`ModelDescription.inputFitting`: `[net] letter_box`, else the cfg's dialect);
    /// `.letterbox` (`letterbox_image`) or `.stretch` (`resize_image`) to override it.
    public var mapping: InputMapping?
    /// How the network runs: threads, convolution methods (fixed when the detector is made).
    public var execution: ExecutionOptions = .init()
    /// Most networks (activation buffers, one per batch size in use) the detector keeps
    /// between calls: 2, enough for one caller and one batch size to reuse theirs; more
    /// concurrent callers make their own and drop them afterwards (`NetworkPool`).
    public var maximumIdleNetworks = 2

    public init(threshold: Float = 0.5, nmsThreshold: Float = 0.45, nmsMode: NMSMode = .perClass,
                width: Int? = nil, height: Int? = nil, mapping: InputMapping? = nil,
                execution: ExecutionOptions = .init(), hierarchyThreshold: Float = 0.5) {
        self.threshold = threshold
        self.hierarchyThreshold = hierarchyThreshold
        self.nmsThreshold = nmsThreshold
        self.nmsMode = nmsMode
        self.width = width
        self.height = height
        self.mapping = mapping
        self.execution = execution
    }
}
