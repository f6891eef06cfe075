import ArgumentParser
import CommandSupport
import Darknet
import YOLO

/// The options the detecting commands share for which boxes they keep: the thresholds, NMS
/// and the classes; part of `DetectionOptions`. `Words` states the defaults, which are the
/// cfg's darknet's (`DetectorSelection.Defaults`) when the option is not given.
struct BoxSelectionOptions<Words: DetectionWords>: ParsableArguments {
    @Option(help: ArgumentHelp("Probability a detection must exceed (default: \(Words.thresholdDefault))."))
    var thresh: Float?

    @Option(name: .customLong("hier-thresh"),
            help: "How far down a class tree (yolo9000's [region] tree=) a box's class goes, for pjreddie-style cfgs (darknet's -hier).")
    var hierThresh: Float = 0.5

    @Option(help: ArgumentHelp("IoU above which non-maximum suppression removes a box (0 disables NMS; default: \(Words.nmsDefault))."))
    var nms: Float?

    @Option(help: "per-class (darknet's), agnostic (suppress across classes) or none.")
    var nmsMode: DetectorOptions.NMSMode = .perClass

    @Option(help: "Keep only these classes (names or numbers, comma-separated: dog,car).")
    var classes: String?

    func validate() throws {
        if let thresh, !(0...1).contains(thresh) { throw ValidationError("--thresh must be in 0...1, got \(thresh)") }
        guard hierThresh >= 0, hierThresh <= 1 else { throw ValidationError("--hier-thresh must be in 0...1, got \(hierThresh)") }
        if let nms, !(0...1).contains(nms) { throw ValidationError("--nms must be in 0...1, got \(nms)") }
    }

    /// The detector's options: these thresholds (`--nms 0` turns NMS off; an option not given
    /// is the cfg's darknet's default, resolved by `ModelLoader.detector`) and `mapping`
    /// (`ModelLoader.detector` adds the input size and execution).
    func detectorOptions(mapping: InputMapping?, defaults: DetectorSelection.Defaults = .test) -> DetectorSelection {
        DetectorSelection(options: DetectorOptions(nmsMode: nmsMode, mapping: mapping, hierarchyThreshold: hierThresh),
                          threshold: thresh, nmsThreshold: nms, defaults: defaults)
    }

    /// `--classes` (looked up in `names`) and at most `maxDetections` boxes an image.
    func filter(names: [String], maxDetections: Int?) throws -> DetectionFilter {
        DetectionFilter(classes: try classes.map { try DetectionFilter.classIds($0, names: names) }, maxDetections: maxDetections)
    }
}
