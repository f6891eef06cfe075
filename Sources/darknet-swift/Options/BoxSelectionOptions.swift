import ArgumentParser
import Darknet
import YOLO

/// The options `detect` and `stream` share for which boxes they keep: the thresholds, NMS and
/// the classes; part of `DetectionOptions`.
struct BoxSelectionOptions: ParsableArguments {
    @Option(help: "Probability a detection must exceed.")
    var thresh: Float = 0.5

    @Option(name: .customLong("hier-thresh"),
            help: "How far down a class tree (yolo9000's [region] tree=) a box's class goes, for pjreddie-style cfgs (darknet's -hier).")
    var hierThresh: Float = 0.5

    @Option(help: "IoU above which non-maximum suppression removes a box (0 disables NMS).")
    var nms: Float = 0.45

    @Option(help: "per-class (darknet's), agnostic (suppress across classes) or none.")
    var nmsMode: DetectorOptions.NMSMode = .perClass

    @Option(help: "Keep only these classes (names or numbers, comma-separated: dog,car).")
    var classes: String?

    func validate() throws {
        guard thresh >= 0, thresh <= 1 else { throw ValidationError("--thresh must be in 0...1, got \(thresh)") }
        guard hierThresh >= 0, hierThresh <= 1 else { throw ValidationError("--hier-thresh must be in 0...1, got \(hierThresh)") }
        guard nms >= 0, nms <= 1 else { throw ValidationError("--nms must be in 0...1, got \(nms)") }
    }

    /// The detector's options: these thresholds (`--nms 0` turns NMS off) and `mapping`
    /// (`ModelLoader.detector` adds the input size and execution).
    func detectorOptions(mapping: InputMapping?) -> DetectorOptions {
        DetectorOptions(threshold: thresh, nmsThreshold: nms, nmsMode: nms == 0 ? .none : nmsMode, mapping: mapping,
                        hierarchyThreshold: hierThresh)
    }

    /// `--classes` (looked up in `names`) and at most `maxDetections` boxes an image.
    func filter(names: [String], maxDetections: Int?) throws -> DetectionFilter {
        DetectionFilter(classes: try classes.map { try DetectionFilter.classIds($0, names: names) }, maxDetections: maxDetections)
    }
}
