import Foundation
import TestSupport
import XCTest

/// What a run of the binary cost, measured on the process itself (not a wall clock): its
/// peak resident memory and the CPU time it used, as `wait4` reports them.
struct ChildResources {
    var status: Int32
    /// `ru_maxrss`, KiB.
    var kibibytes: Int
    /// User plus system CPU seconds.
    var cpuSeconds: Double
}

extension CLI {
    /// Runs `/bin/sh -c script` (with `$BIN` set; the script should `exec "$BIN" …` so the
    /// measured process is the binary) as the grandchild of a small Python process, for the
    /// reason `peakMemory` gives; stdout and stderr go to /dev/null unless the script redirects them.
    static func resources(_ script: String) throws -> ChildResources {
        let probe = """
        import os, sys
        devnull = os.open("/dev/null", os.O_RDWR)
        pid = os.fork()
        if pid == 0:
            for fd in (0, 1, 2): os.dup2(devnull, fd)
            try: os.execv("/bin/sh", ["/bin/sh", "-c", sys.argv[1]])
            finally: os._exit(127)
        _, status, usage = os.wait4(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        print(code if code >= 0 else 128 - code, usage.ru_maxrss, usage.ru_utime + usage.ru_stime)
        """
        let result = try run(executable: URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", probe, script],
                             environment: ["BIN": binary.path], timeout: 1200)
        if result.status == 127 { throw Skip.because("python3 is needed to measure a child's resources (apt-get install python3)") }
        let fields = result.stdout.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        guard result.status == 0, fields.count == 3, let status = Int32(fields[0]), let kib = Int(fields[1]),
              let cpu = Double(fields[2]) else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "resource probe failed: \(result.stderr)"])
        }
        return ChildResources(status: status, kibibytes: kib, cpuSeconds: cpu)
    }
}
