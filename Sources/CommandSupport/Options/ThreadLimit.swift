import ArgumentParser
import Foundation

/// `--threads`: workers for the convolutions (GEMM) and the engine's parallel loops, capped at
/// 4 per core and 256 in all (more only add threads that wait: 1,000 asked made 1,003).
enum ThreadLimit {
    static let help: ArgumentHelp = "Threads for convolutions and the engine's parallel loops (default: one per core; at most 4 per core, 256 in all)."

    static var maximum: Int { min(4 * ProcessInfo.processInfo.activeProcessorCount, 256) }

    /// `requested`, or the cap with a warning when it is above it.
    static func capped(_ requested: Int) -> Int {
        guard requested > maximum else { return requested }
        warn("warning: --threads \(requested) is more than \(maximum) (4 per core, at most 256): using \(maximum)")
        return maximum
    }
}
