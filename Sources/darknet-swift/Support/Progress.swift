import CommandSupport
import Foundation

/// A one-line progress bar on stderr (`[#####.....] 120/1000  8.1 img/s  ETA 1:48`, or
/// `120 images  8.1 img/s` while a streamed list has no known end), drawn only when stderr is
/// a terminal and not `--quiet`, at most ten times a second. Anything else printed while it
/// shows (a result on a stdout that is the same terminal, a failure on stderr) erases it
/// first, so no line starts with a piece of the bar; the next update draws it again.
struct Progress {
    let total: Int?
    let enabled: Bool
    private let start = DispatchTime.now().uptimeNanoseconds
    private var lastDraw: UInt64 = 0
    private var shown = false

    init(total: Int?, quiet: Bool) {
        self.total = total
        enabled = !quiet && isatty(STDERR_FILENO) == 1 && total != 0
    }

    mutating func update(done: Int) {
        guard enabled else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        if shown && done != total && now - lastDraw < 100_000_000 { return }
        lastDraw = now
        let seconds = Double(now - start) / 1e9
        let rate = seconds > 0 ? Double(done) / seconds : 0
        let line: String
        if let total {
            let eta = rate > 0 ? Int((Double(total - done) / rate).rounded()) : 0
            let filled = total > 0 ? 30 * done / total : 0
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled)
            line = String(format: "\r[%@] %d/%d  %.1f img/s  ETA %d:%02d", bar, done, total, rate, eta / 60, eta % 60)
        } else {
            line = String(format: "\r%d images  %.1f img/s", done, rate)
        }
        writeToStandardError(line)
        shown = true
    }

    /// Erases the bar before a line on stderr, or on stdout when stdout is the terminal too.
    mutating func erase(forStandardOutput: Bool = false) {
        guard enabled, shown, !forStandardOutput || StandardOutput.isTerminal else { return }
        writeToStandardError("\r\u{1B}[K")
        shown = false
    }

    /// Erases the bar so the summary line starts clean.
    mutating func finish() { erase() }
}
