import Foundation

/// A one-line progress bar on stderr (`[#####.....] 120/1000  8.1 img/s  ETA 1:48`), drawn
/// only when stderr is a terminal and not `--quiet`, at most ten times a second.
struct Progress {
    let total: Int
    let enabled: Bool
    private let start = DispatchTime.now().uptimeNanoseconds
    private var lastDraw: UInt64 = 0

    init(total: Int, quiet: Bool) {
        self.total = total
        enabled = !quiet && isatty(STDERR_FILENO) == 1 && total > 0
    }

    mutating func update(done: Int) {
        guard enabled else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        if done < total && now - lastDraw < 100_000_000 { return }
        lastDraw = now
        let seconds = Double(now - start) / 1e9
        let rate = seconds > 0 ? Double(done) / seconds : 0
        let eta = rate > 0 ? Int((Double(total - done) / rate).rounded()) : 0
        let filled = total > 0 ? 30 * done / total : 0
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled)
        let line = String(format: "\r[%@] %d/%d  %.1f img/s  ETA %d:%02d", bar, done, total, rate, eta / 60, eta % 60)
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Erases the bar so the summary line starts clean.
    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
