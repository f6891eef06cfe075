import ArgumentParser
import Darknet

/// `--size`: the network input's width and height (one number, a square input), overriding
/// the cfg's `[net]`. Declared here once; `Rule` gives a command's words and accepted sizes.
package struct SizeOption<Rule: SizeRule>: ParsableArguments {
    @Option(help: ArgumentHelp(Rule.help))
    package var size: Int?

    package init() {}

    package func validate() throws {
        guard let size, !Rule.range.contains(size) || size % Rule.multiple != 0 else { return }
        let expected = Rule.multiple == 1 ? "in \(Rule.range)" : "a multiple of \(Rule.multiple) in \(Rule.range)"
        throw ValidationError("--size must be \(expected), got \(size)")
    }
}

/// What `--size` says in a command's help and which sizes it accepts: by default, the words
/// of the commands that run a model and any size up to the engine's bound on `[net]`
/// (`ModelLimits.maximumInputSide`).
package protocol SizeRule: OptionHelp {
    static var range: ClosedRange<Int> { get }
    /// Accepted sizes are multiples of this.
    static var multiple: Int { get }
}

extension SizeRule {
    package static var help: String { "Network input width and height (overrides the cfg's [net])." }
    package static var range: ClosedRange<Int> { 1...ModelLimits().maximumInputSide }
    package static var multiple: Int { 1 }
}

/// A detector's input (`detect`, `stream`, `benchmark`): a multiple of 32, the total stride
/// of darknet's YOLO backbones, so each head's grid covers the image exactly.
package enum DetectorSize: SizeRule {
    package static var range: ClosedRange<Int> { 32...ModelLimits().maximumInputSide }
    package static var multiple: Int { 32 }
}

/// A classifier's input (`classify`): any size the engine reads.
package enum ClassifierSize: SizeRule {}
