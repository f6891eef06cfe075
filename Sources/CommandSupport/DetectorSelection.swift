import Darknet

/// What a detecting command asks of its detector: the library's options, with the threshold
/// and the NMS threshold left open when the user gave none. `ModelLoader.detector` resolves
/// them once the cfg is read, to what the cfg's darknet does in the command `defaults` names.
package struct DetectorSelection: Sendable {
    /// Whose defaults apply.
    package enum Defaults: Sendable {
        /// `detector test` (and `detect`, `stream`): the cfg's darknet's threshold
        /// (`ModelDescription.defaultThreshold`), NMS at 0.45 (both darknets').
        case test
        /// `detector valid`: AlexeyAB's `validate_detector` keeps every box above 0.001 and
        /// suppresses at 0.6; pjreddie's above 0.005, at 0.45 (detector.c of each).
        case valid
    }

    package var options: DetectorOptions
    /// `--thresh`, nil when not given.
    package var threshold: Float?
    /// `--nms`, nil when not given; 0 turns NMS off.
    package var nmsThreshold: Float?
    package var defaults: Defaults

    package init(options: DetectorOptions, threshold: Float?, nmsThreshold: Float? = nil, defaults: Defaults = .test) {
        self.options = options
        self.threshold = threshold
        self.nmsThreshold = nmsThreshold
        self.defaults = defaults
    }

    /// The detector's options for `model`: the given thresholds, else the defaults.
    package func resolved(for model: ModelDescription) -> DetectorOptions {
        var resolved = options
        resolved.threshold = thresholdChoice(model).value
        let alexeyAB = model.dialect.dialect == .alexeyAB
        resolved.nmsThreshold = nmsThreshold ?? (defaults == .valid && alexeyAB ? 0.6 : 0.45)
        if resolved.nmsThreshold == 0 { resolved.nmsMode = .none }
        return resolved
    }

    /// The threshold a detector of `model` runs at and why: `--thresh`, or the default.
    package func thresholdChoice(_ model: ModelDescription) -> DefaultThreshold {
        if let threshold { return DefaultThreshold(value: threshold, reason: "--thresh") }
        switch (defaults, model.dialect.dialect) {
        case (.test, _): return model.defaultThreshold
        case (.valid, .alexeyAB): return DefaultThreshold(value: 0.001, reason: "an AlexeyAB cfg: his detector valid's threshold")
        case (.valid, .pjreddie): return DefaultThreshold(value: 0.005, reason: "a pjreddie cfg: darknet detector valid's threshold")
        }
    }
}
