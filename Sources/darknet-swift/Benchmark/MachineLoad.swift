import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How busy other processes kept the machine while `benchmark` measured, in cores.
///
/// Read from two samples taken around the measured runs: the CPU time every process spent,
/// from the `cpu` line of /proc/stat (user, nice, system, irq, softirq and steal ticks, steal
/// being what a hypervisor gave its other guests; idle and iowait are not busy; guest time is
/// already in user and nice), less this process's own CPU time (`CLOCK_PROCESS_CPUTIME_ID`, every thread),
/// over all ticks of every CPU in the interval. `otherBusyCores` is that share times the
/// CPUs /proc/stat counts: 1.0 on a 2-core machine means other processes kept one core busy
/// on average. Without /proc/stat (macOS) there is no reading.
struct MachineLoad: Equatable {
    /// The CPUs /proc/stat counts (its `cpuN` lines).
    var cores: Int
    /// Cores kept busy by other processes, averaged over the interval (≥ 0).
    var otherBusyCores: Double
    /// Cores this process kept busy.
    var ownBusyCores: Double

    /// One reading of the counters.
    struct Sample: Equatable {
        /// Busy and total ticks of all CPUs together, and how many CPUs.
        var busyTicks: UInt64
        var totalTicks: UInt64
        var cores: Int
        /// This process's CPU seconds so far.
        var ownSeconds: Double
    }

    /// The counters now; nil without a readable /proc/stat.
    static func sample() -> Sample? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return nil }
        var own = timespec()
        guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &own) == 0 else { return nil }
        return sample(procStat: text, ownSeconds: Double(own.tv_sec) + Double(own.tv_nsec) / 1e9)
    }

    /// The counters in a /proc/stat text, with this process's CPU seconds; nil when its `cpu`
    /// line is missing or short.
    static func sample(procStat: String, ownSeconds: Double) -> Sample? {
        var ticks: [UInt64]?
        var cores = 0
        for line in procStat.split(separator: "\n") where line.hasPrefix("cpu") {
            let fields = line.split(separator: " ")
            if fields[0] == "cpu" {
                ticks = fields.dropFirst().compactMap { UInt64($0) }
            } else if Int(fields[0].dropFirst(3)) != nil {
                cores += 1
            }
        }
        // user nice system idle iowait irq softirq steal [guest guest_nice]
        guard let ticks, ticks.count >= 8 else { return nil }
        let busy = ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6] + ticks[7]
        return Sample(busyTicks: busy, totalTicks: busy + ticks[3] + ticks[4], cores: max(cores, 1), ownSeconds: ownSeconds)
    }

    /// The load between two samples, `ticksPerSecond` being /proc/stat's unit (`_SC_CLK_TCK`);
    /// nil when no tick passed.
    static func between(_ start: Sample, _ end: Sample, ticksPerSecond: Double) -> MachineLoad? {
        guard end.totalTicks > start.totalTicks, end.busyTicks >= start.busyTicks else { return nil }
        let total = Double(end.totalTicks - start.totalTicks)
        let own = max(0, end.ownSeconds - start.ownSeconds) * ticksPerSecond
        let busy = Double(end.busyTicks - start.busyTicks)
        let cores = Double(end.cores)
        return MachineLoad(cores: end.cores, otherBusyCores: max(0, busy - own) / total * cores,
                           ownBusyCores: min(own, busy) / total * cores)
    }

    /// /proc/stat's ticks per second.
    static var ticksPerSecond: Double { Double(sysconf(Int32(_SC_CLK_TCK))) }
}
