import Darknet
import Foundation

/// Facts about the machine and build a benchmark ran on (the header of its report).
struct Machine {
    var date: String
    var commit: String
    var cpu: String
    var cores: Int
    /// OpenBLAS's configuration string (`OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY …`).
    var blas: String
    /// The OpenBLAS kernel the engine runs on (`BLAS.coreName`).
    var blasCore: String
    /// Why that is not the kernel OpenBLAS picked (`BLAS.coreNote`), else nil.
    var blasCoreNote: String?
    /// The OpenBLAS kernel driven with pre-packed weights (`ExecutionOptions.packedKernel`), else nil.
    var packedKernel: String?
    var threads: Int
    /// This machine's sgemm GFLOPS (`--peak`), else nil.
    var peakGflops: Double?

    static func current(_ options: ExecutionOptions, peakGflops: Double?) -> Machine {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return Machine(date: formatter.string(from: Date()), commit: buildCommit(), cpu: cpuModel(),
                       cores: ProcessInfo.processInfo.activeProcessorCount,
                       blas: BLAS.configuration.trimmingCharacters(in: .whitespaces), blasCore: BLAS.coreName, blasCoreNote: BLAS.coreNote,
                       packedKernel: options.packedKernel, threads: options.threads, peakGflops: peakGflops)
    }

    /// `$DARKNET_SWIFT_COMMIT` when set (packagers, CI), else `git rev-parse --short HEAD` run in
    /// the source folder this binary was built from (with `+modified` when tracked files
    /// differ from that commit), else `unknown`.
    static func buildCommit() -> String {
        if let commit = ProcessInfo.processInfo.environment["DARKNET_SWIFT_COMMIT"], !commit.isEmpty { return commit }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: root + "/.git"),
              let head = run(["git", "-C", root, "rev-parse", "--short", "HEAD"]), !head.isEmpty else { return "unknown" }
        let status = run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no"]) ?? ""
        return status.isEmpty ? head : head + "+modified"
    }

    /// "model name" of /proc/cpuinfo on Linux, `machdep.cpu.brand_string` on macOS.
    static func cpuModel() -> String {
        #if os(Linux)
        if let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) {
            for line in text.split(separator: "\n") where line.hasPrefix("model name") {
                if let colon = line.firstIndex(of: ":") {
                    return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
            }
        }
        #elseif os(macOS)
        if let brand = run(["sysctl", "-n", "machdep.cpu.brand_string"]), !brand.isEmpty { return brand }
        #endif
        return "unknown"
    }

    /// Runs a tool found on PATH; its trimmed stdout, or nil when it fails or is missing.
    private static func run(_ arguments: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// This machine's sgemm speed: the median of `repeats` timed `n × n × n` products (after
    /// one untimed), in GFLOPS (`2n³` flops each), with the current OpenBLAS thread count.
    static let peakSize = 1536
    static let peakRepeats = 5

    static func measurePeakGflops(n: Int = peakSize, repeats: Int = peakRepeats, threads: Int) -> Double {
        var seconds: [Double] = []
        for run in 0...repeats {
            let start = DispatchTime.now().uptimeNanoseconds
            BLAS.squareProduct(n: n, threads: threads)
            let end = DispatchTime.now().uptimeNanoseconds
            if run > 0 { seconds.append(Double(end - start) / 1e9) }
        }
        return 2 * pow(Double(n), 3) / Statistics.median(seconds) / 1e9
    }
}

/// Order statistics of timings.
enum Statistics {
    /// The middle value (mean of the two middle ones for an even count); 0 for none.
    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }

    /// Nearest-rank percentile (`p` in 0...1): the smallest value with at least `p` of the values ≤ it.
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((p * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}
