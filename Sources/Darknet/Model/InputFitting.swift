import YOLO

/// How an image is fitted to the network input for a cfg, and why: what `Detector` does
/// unless told otherwise, and what `summary` and `detect` report.
public struct InputFitting: Sendable, Hashable, CustomStringConvertible {
    public var mapping: InputMapping
    /// One line: the cfg key or the dialect that decided.
    public var reason: String

    public init(mapping: InputMapping, reason: String) {
        self.mapping = mapping
        self.reason = reason
    }

    /// "letterbox ([net] letter_box=1 at yolov4-csp.cfg:23)".
    public var description: String { "\(mapping == .letterbox ? "letterbox" : "stretch") (\(reason))" }

    /// darknet's choice: `[net] letter_box` when set (non-zero letterboxes, 0 resizes, as
    /// AlexeyAB's `detector test` reads it); without it, a pjreddie-dialect cfg letterboxes
    /// (pjreddie's `detect` always does) and an AlexeyAB-dialect cfg is resized to the network
    /// size (AlexeyAB's and hank-ai's `detector test` letterbox only when asked).
    /// `head`: the fitting a head's own darknet uses (`DetectionHeadLayer.inputFitting`: a
    /// YOLOv1 `[detection]` is resized, as `yolo test` does), which the dialect gives way to.
    static func decide(letterBox: Bool?, at location: CfgLocation?, dialect: DialectDecision, head: InputFitting? = nil) -> InputFitting {
        if let letterBox {
            let place = location.map { " at line \($0.line)" } ?? ""
            return InputFitting(mapping: letterBox ? .letterbox : .stretch, reason: "[net] letter_box=\(letterBox ? 1 : 0)\(place)")
        }
        if let head { return head }
        switch dialect.dialect {
        case .pjreddie:
            return InputFitting(mapping: .letterbox, reason: "no letter_box in a pjreddie cfg: darknet detect letterboxes")
        case .alexeyAB:
            let evidence = dialect.what.map { what in " (\(what)" + (dialect.evidence.map { " at line \($0.line)" } ?? "") + ")" } ?? ""
            return InputFitting(mapping: .stretch, reason: "no letter_box in an AlexeyAB cfg\(evidence): detector test resizes")
        }
    }
}

extension ModelDescription {
    /// How `detector test` fits an image to this network (`InputFitting.decide`, given the
    /// fitting of the first head that has its own).
    public var inputFitting: InputFitting {
        let head = layers.lazy.compactMap { $0.detectionHead?.inputFitting }.first
        return InputFitting.decide(letterBox: net.letterBox, at: net.letterBoxLocation, dialect: dialect, head: head)
    }
}
