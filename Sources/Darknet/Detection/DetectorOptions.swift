import YOLO

/// How a `Detector` prepares images and filters boxes. Defaults are `darknet detect`'s.
public struct DetectorOptions: Sendable, Hashable {
    public enum NMSMode: String, Sendable, Hashable, CaseIterable {
        /// darknet's `do_nms_sort`: suppress within each class (AlexeyAB's `diounms_sort` with
        /// `beta_nms` when the cfg's last `[yolo]` says `nms_kind=diounms`, see `Detector.cfgNMS`).
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
    public var nmsMode: NMSMode = .perClass
    /// Network input size; nil keeps the cfg's `[net]` width/height.
    public var width: Int?
    public var height: Int?
    /// darknet letterboxes (`letterbox_image`); `.stretch` resizes without keeping the aspect ratio.
    public var mapping: InputMapping = .letterbox
    /// How the network runs: threads, convolution methods (fixed when the detector is made).
    public var execution: ExecutionOptions = .init()

    public init(threshold: Float = 0.5, nmsThreshold: Float = 0.45, nmsMode: NMSMode = .perClass,
                width: Int? = nil, height: Int? = nil, mapping: InputMapping = .letterbox,
                execution: ExecutionOptions = .init()) {
        self.threshold = threshold
        self.nmsThreshold = nmsThreshold
        self.nmsMode = nmsMode
        self.width = width
        self.height = height
        self.mapping = mapping
        self.execution = execution
    }
}
