import Foundation
import TestSupport
import XCTest

/// Running the binary the ways users do beyond `CLI.run`: under a shell (signals, limits, raw
/// byte arguments), with a hang guard, and measuring its peak memory.
extension CLI {
    /// Runs `/bin/sh -c script` with `$BIN` set to the binary; stdout and stderr go to files.
    /// A run longer than `timeout` seconds is killed and fails the test (a hang guard, not a timing).
    static func shell(_ script: String, environment: [String: String] = [:], timeout: Double = 600,
                      file: StaticString = #filePath, line: UInt = #line) throws -> CLIResult {
        var env = environment
        env["BIN"] = binary.path
        return try run(executable: URL(fileURLWithPath: "/bin/sh"), ["-c", script], environment: env, timeout: timeout,
                       file: file, line: line)
    }

    /// Runs the binary with a hang guard (see `shell`).
    static func run(_ arguments: [String], timeout: Double, stdin: URL? = nil,
                    file: StaticString = #filePath, line: UInt = #line) throws -> CLIResult {
        try run(executable: binary, arguments, stdin: stdin, timeout: timeout, file: file, line: line)
    }

    static func run(executable: URL, _ arguments: [String], environment: [String: String] = [:], stdin: URL? = nil,
                    timeout: Double, file: StaticString = #filePath, line: UInt = #line) throws -> CLIResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["COLUMNS"] = "100"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("darknet-swift-cli-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outURL = folder.appendingPathComponent("stdout"), errURL = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = try stdin.map { try FileHandle(forReadingFrom: $0) } ?? FileHandle.nullDevice
        try process.run()
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            process.waitUntilExit()
            finished.signal()
        }
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            finished.wait()
            XCTFail("\(arguments) did not finish within \(Int(timeout)) s (killed)", file: file, line: line)
        }
        try out.close()
        try err.close()
        let outData = try Data(contentsOf: outURL), errData = try Data(contentsOf: errURL)
        return CLIResult(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self), stdoutData: outData,
                         signaled: process.terminationReason == .uncaughtSignal)
    }

    /// The binary's exit status and peak resident memory (KiB, `ru_maxrss` of that process),
    /// stdout and stderr discarded.
    ///
    /// The binary runs as the grandchild of a small Python process that forks it and reports
    /// `wait4`'s rusage. Spawned from this process directly, it would report at least this
    /// process's own peak: Linux carries the high-water RSS of the memory a process leaves at
    /// `exec` into its `ru_maxrss`, and `posix_spawn`'s child (`CLONE_VM`) and a forked one
    /// (its copied page tables) both leave memory as large as this test process, which holds
    /// yolov3-sized networks after other tests.
    static func peakMemory(_ arguments: [String]) throws -> (status: Int32, kibibytes: Int) {
        let script = """
        import os, sys
        devnull = os.open("/dev/null", os.O_RDWR)
        pid = os.fork()
        if pid == 0:
            for fd in (0, 1, 2): os.dup2(devnull, fd)
            try: os.execv(sys.argv[1], sys.argv[1:])
            finally: os._exit(127)
        _, status, usage = os.wait4(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        print(code if code >= 0 else 128 - code, usage.ru_maxrss)
        """
        let result = try run(executable: URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, binary.path] + arguments,
                             timeout: 600)
        let fields = result.stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        if result.status == 127 { throw Skip.because("python3 is needed to measure a child's own peak memory (apt-get install python3)") }
        guard result.status == 0, fields.count == 2 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "peak memory probe failed: \(result.stderr)"])
        }
        return (Int32(fields[0]), fields[1])
    }

    /// Names in `folder` as raw bytes (FileManager drops names that are not UTF-8).
    static func rawNames(in folder: String) -> [[UInt8]] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var names: [[UInt8]] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name != Array(".".utf8) && name != Array("..".utf8) { names.append(name) }
        }
        return names.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// Writes `bytes` to a file whose name is raw bytes (not necessarily UTF-8) in `folder`.
    static func writeRaw(_ bytes: Data, folder: String, name: [UInt8]) throws {
        let path = Array(folder.utf8) + [UInt8(ascii: "/")] + name + [0]
        let fd = path.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
        }
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw POSIXError(.EIO) }
    }

    /// A FIFO at `path` fed with `bytes` by a background thread once a reader opens it. Call the
    /// returned closure after the run: it unblocks a writer whose reader never came.
    static func fifo(at path: String, feeding bytes: Data) -> () -> Void {
        mkfifo(path, 0o600)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            // A reader that stops early must not end the test process: SIGPIPE (sent to the
            // writing thread) is blocked here, so write(2) fails with EPIPE instead.
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            let fd = open(path, O_WRONLY)
            if fd >= 0 {
                var offset = 0
                while offset < bytes.count {
                    let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
                    if n <= 0 { break }
                    offset += n
                }
                close(fd)
            }
            done.signal()
        }
        return {
            // A reader that opens and closes releases a writer still waiting in open(2).
            let fd = open(path, O_RDONLY | O_NONBLOCK)
            if done.wait(timeout: .now() + 5) == .timedOut, fd >= 0 { close(fd); done.wait() } else if fd >= 0 { close(fd) }
        }
    }

    static func tinyDetector() throws -> [String] {
        [try TestData.path("cfg/yolov3-tiny.cfg"), try TestData.path("yolov3-tiny.weights")]
    }

    /// The classifier of `ClassifyCommandTests` (avgpool → connected with biases 2, 1, 0 →
    /// softmax: every image scores 66.52 %, 24.47 %, 9.00 %), written into `folder`.
    static func tinyClassifier(in folder: URL) throws -> (cfg: String, weights: String) {
        let cfg = folder.appendingPathComponent("tiny-classifier.cfg")
        try "[net]\nwidth=8\nheight=8\nchannels=3\n[avgpool]\n[connected]\noutput=3\nactivation=linear\n[softmax]\n"
            .write(to: cfg, atomically: true, encoding: .utf8)
        var bytes: [UInt8] = []
        for v in [Int32(0), 2, 0] { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
        withUnsafeBytes(of: UInt64(0)) { bytes += $0 }
        for f in [Float(2), 1, 0] + [Float](repeating: 0, count: 9) { withUnsafeBytes(of: f.bitPattern.littleEndian) { bytes += $0 } }
        let weights = folder.appendingPathComponent("tiny-classifier.weights")
        try Data(bytes).write(to: weights)
        return (cfg.path, weights.path)
    }

    /// Lines of a JSON Lines output, parsed.
    static func objects(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        try text.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], String($0), file: file, line: line)
        }
    }
}
