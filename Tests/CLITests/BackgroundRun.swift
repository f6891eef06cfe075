import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// The binary running in the background, as a live source runs it: stdout and stderr go to
/// files the test reads while it runs; the test sees its children (the ffmpeg it started) and
/// sends it signals.
final class BackgroundRun {
    let process = Process()
    let folder: URL

    init(_ arguments: [String], in folder: URL, environment: [String: String] = [:]) throws {
        self.folder = folder
        process.executableURL = CLI.binary
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        for name in ["stdout", "stderr"] { try Data().write(to: folder.appendingPathComponent(name)) }
        process.standardOutput = try FileHandle(forWritingTo: folder.appendingPathComponent("stdout"))
        process.standardError = try FileHandle(forWritingTo: folder.appendingPathComponent("stderr"))
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    var pid: pid_t { process.processIdentifier }
    var stdout: String { (try? String(contentsOf: folder.appendingPathComponent("stdout"), encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: folder.appendingPathComponent("stderr"), encoding: .utf8)) ?? "" }
    var lines: Int { stdout.split(separator: "\n").count }

    /// Waits until `condition` holds (true) or the run ended or `timeout` seconds passed
    /// (false): the timeout only turns a hang into a failure.
    @discardableResult
    func wait(timeout: Double = 120, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            if !process.isRunning { return condition() }
            usleep(20_000)
        }
        return condition()
    }

    /// Waits for the end (SIGKILL after `timeout` seconds: a hang fails the test).
    func finish(timeout: Double = 120, file: StaticString = #filePath, line: UInt = #line) {
        if !wait(timeout: timeout, until: { !process.isRunning }) {
            kill(pid, SIGKILL)
            XCTFail("the run did not end within \(Int(timeout)) s (killed)\n\(stderr)", file: file, line: line)
        }
        process.waitUntilExit()
    }

    /// The processes whose parent is this run, with their command lines.
    var children: [(pid: pid_t, command: String)] { BackgroundRun.children(of: pid) }

    static func children(of parent: pid_t) -> [(pid: pid_t, command: String)] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> (pid_t, String)? in
            guard let pid = pid_t(entry),
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            // pid (comm) state ppid …: the name may hold spaces and parentheses.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, pid_t(fields[1]) == parent else { return nil }
            let command = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(entry)/cmdline")))
                .map { String(decoding: $0.map { $0 == 0 ? 32 : $0 }, as: UTF8.self) } ?? ""
            return (pid, command)
        }
    }

    /// Whether `pid` names a live process (a zombie counts as gone).
    static func isAlive(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else {
            return false
        }
        return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
    }
}
