import ArgumentParser
import CommandSupport
import Darknet
import YOLO

/// The options `detect` and `stream` share for what they detect: the class names, which boxes
/// they keep (`BoxSelectionOptions`), how many of them an input, and how an input is fitted to
/// the network (`MappingOption`). Declared here once; `Words` names a command's inputs and the
/// defaults it states.
struct DetectionOptions<Words: DetectionWords>: ParsableArguments {
    @Option(help: ArgumentHelp("Class names, one per line (default: \(Words.namesDefault))."))
    var names: String?

    @OptionGroup var boxes: BoxSelectionOptions<Words>

    @Option(help: ArgumentHelp("Keep at most this many detections per \(Words.input) (highest confidence first)."))
    var maxDetections: Int?

    @OptionGroup var fitting: MappingOption<Words>

    func validate() throws {
        if let maxDetections, maxDetections < 0 { throw ValidationError("--max-detections must be ≥ 0") }
    }

    /// The detector's thresholds, NMS and input mapping (`ModelLoader.detector` adds the
    /// network size and execution).
    var detectorOptions: DetectorSelection { boxes.detectorOptions(mapping: fitting.mapping?.value) }

    /// `--classes` (looked up in `names`) and `--max-detections`.
    func filter(names: [String]) throws -> DetectionFilter {
        try boxes.filter(names: names, maxDetections: maxDetections)
    }
}

/// What a detecting command calls one of its inputs ("image", "frame") and the defaults its
/// help states for `--names`, the input mapping, `--thresh` and `--nms`.
protocol DetectionWords {
    static var input: String { get }
    static var namesDefault: String { get }
    static var mappingDefault: String { get }
    static var thresholdDefault: String { get }
    static var nmsDefault: String { get }
}

extension DetectionWords {
    /// `detector test`'s: the cfg's darknet's (`DefaultThreshold`).
    static var thresholdDefault: String { "0.25 for AlexeyAB-style cfgs, his detector test's; 0.5 for pjreddie's, darknet detect's" }
    static var nmsDefault: String { "0.45" }
}

/// `--letterbox` / `--stretch`: how an input is fitted to the network. Declared here once.
struct MappingOption<Words: DetectionWords>: ParsableArguments {
    @Flag(help: ArgumentHelp("Letterbox the \(Words.input) into the network input or stretch it (default: \(Words.mappingDefault))."))
    var mapping: MappingFlag?
}

/// `--letterbox` / `--stretch`.
enum MappingFlag: String, EnumerableFlag {
    case letterbox, stretch

    var value: InputMapping { self == .letterbox ? .letterbox : .stretch }
}
