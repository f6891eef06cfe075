/// The probability a detection must exceed when the caller does not say, and why: the default
/// of the darknet a cfg was written for. AlexeyAB's `run_detector` reads `-thresh` with 0.25
/// (`detector test`, `detector demo`; detector.c); pjreddie's `detect` and `detector test` with
/// 0.5. A model trained with AlexeyAB's darknet is judged by its user at his 0.25, so the same
/// photo at pjreddie's 0.5 loses the boxes between the two without a word.
public struct DefaultThreshold: Sendable, Hashable, CustomStringConvertible {
    public var value: Float
    /// One line: the dialect and what in the cfg decided it.
    public var reason: String

    public init(value: Float, reason: String) {
        self.value = value
        self.reason = reason
    }

    /// "0.25 (an AlexeyAB cfg (key 'groups' at line 34): his detector test's -thresh default)".
    public var description: String { "\(value) (\(reason))" }

    /// AlexeyAB's `detector test` default.
    public static let alexeyAB: Float = 0.25
    /// pjreddie's `detect` and `detector test` default.
    public static let pjreddie: Float = 0.5

    /// The default for a cfg of `dialect`.
    public static func decide(dialect: DialectDecision) -> DefaultThreshold {
        switch dialect.dialect {
        case .pjreddie:
            return DefaultThreshold(value: pjreddie, reason: "a pjreddie cfg: darknet detect's -thresh default")
        case .alexeyAB:
            let evidence = dialect.what.map { what in " (\(what)" + (dialect.evidence.map { " at line \($0.line)" } ?? "") + ")" } ?? ""
            return DefaultThreshold(value: alexeyAB, reason: "an AlexeyAB cfg\(evidence): his detector test's -thresh default")
        }
    }
}

extension ModelDescription {
    /// The detection threshold this cfg's darknet uses when none is given (`DefaultThreshold.decide`).
    public var defaultThreshold: DefaultThreshold { DefaultThreshold.decide(dialect: dialect) }
}
