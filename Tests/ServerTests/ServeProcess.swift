import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The real `darknet-swift-serve` binary (built beside the test bundle) on a free loopback
/// port. Every process a test starts is killed when the test ends, whatever it did.
final class ServeProcess: @unchecked Sendable {
    static var folder: URL { Bundle.main.bundleURL }
    static var binary: URL { folder.appendingPathComponent("darknet-swift-serve") }
    /// The CLI, for the answers the server must equal.
    static var cli: URL { folder.appendingPathComponent("darknet-swift") }

    let process = Process()
    let stderr: URL
    private(set) var port = 0
    private let lock = NSLock()
    private var stdoutText = ""

    var base: String { "http://127.0.0.1:\(port)" }
    var pid: Int32 { process.processIdentifier }

    /// Starts the server with `arguments` (`--port 0` added) and waits for its listening line.
    init(_ arguments: [String], testCase: XCTestCase, file: StaticString = #filePath, line: UInt = #line) throws {
        stderr = try TestData.temporaryFolder(testCase, prefix: "darknet-swift-serve").appendingPathComponent("stderr.log")
        FileManager.default.createFile(atPath: stderr.path, contents: nil)
        process.executableURL = Self.binary
        process.arguments = arguments + ["--port", "0"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = try FileHandle(forWritingTo: stderr)
        process.standardInput = FileHandle.nullDevice
        out.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            self.lock.withLock { self.stdoutText += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
        let process = process
        testCase.addTeardownBlock {
            if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        }
        let start = Date()
        while Date().timeIntervalSince(start) < 120 {
            let text = lock.withLock { stdoutText }
            if let range = text.range(of: "listening on http://127.0.0.1:"),
               let number = Int(text[range.upperBound...].prefix { $0.isNumber }) {
                port = number
                return
            }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        XCTFail("darknet-swift-serve did not listen: \(log)", file: file, line: line)
        throw CocoaError(.executableLoad)
    }

    var log: String { (try? String(contentsOf: stderr, encoding: .utf8)) ?? "" }

    /// Waits until `/v2/health/ready` answers 200 (the models loaded).
    func waitReady(timeout: Double = 300, file: StaticString = #filePath, line: UInt = #line) throws {
        let start = Date()
        while Date().timeIntervalSince(start) < timeout {
            if try Curl.get(base + "/v2/health/ready").status == 200 { return }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        XCTFail("the server was not ready: \(log)", file: file, line: line)
        throw CocoaError(.executableLoad)
    }

    /// SIGTERM, then the exit status (waits at most `timeout` seconds, then kills).
    func terminate(timeout: Double = 120) -> Int32 {
        kill(process.processIdentifier, SIGTERM)
        let start = Date()
        while process.isRunning, Date().timeIntervalSince(start) < timeout { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Resident memory (KiB) and open file descriptors of the running server.
    var resources: (rssKiB: Int, openFiles: Int) {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let rss = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
            .flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") } ?? 0
        let files = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
        return (rss, files)
    }
}

/// `curl` (the client the issue names) on loopback: status and body.
enum Curl {
    struct Result {
        var status: Int
        var body: Data
        var headers: String
        /// curl's exit status: 0, 7 (could not connect), 28 (its --max-time), 52/56 (the
        /// server closed the connection without an answer)…
        var exit: Int32 = 0
        var text: String { String(decoding: body, as: UTF8.self) }
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    }

    static func get(_ url: String, _ extra: [String] = []) throws -> Result {
        try run(extra + [url])
    }

    /// POSTs the file at `path` as the raw body.
    static func post(_ url: String, file path: String, type: String = "application/octet-stream", _ extra: [String] = []) throws -> Result {
        try run(["--data-binary", "@" + path, "-H", "Content-Type: \(type)"] + extra + [url])
    }

    /// Runs curl with `arguments` (`-s`, a 120 s cap), reading the status, headers and body.
    static func run(_ arguments: [String]) throws -> Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let body = folder.appendingPathComponent("body"), headers = folder.appendingPathComponent("headers")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "--max-time", "120", "-o", body.path, "-D", headers.path, "-w", "%{http_code}"] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let code = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: Int(String(decoding: code, as: UTF8.self)) ?? 0,
                      body: (try? Data(contentsOf: body)) ?? Data(),
                      headers: (try? String(contentsOf: headers, encoding: .utf8)) ?? "", exit: process.terminationStatus)
    }
}

extension Curl {
    /// Runs `requests` at the same time (one curl each), answers in order.
    static func concurrently(_ requests: [[String]]) -> [Result] {
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var values: [Result?]
            init(_ count: Int) { values = .init(repeating: nil, count: count) }
        }
        // One thread a request (`concurrentPerform` would run only as many as there are cores).
        let results = Results(requests.count)
        let group = DispatchGroup()
        for (index, request) in requests.enumerated() {
            group.enter()
            Thread {
                let result = (try? run(request)) ?? Result(status: 0, body: Data(), headers: "")
                results.lock.withLock { results.values[index] = result }
                group.leave()
            }.start()
        }
        group.wait()
        return results.values.map { $0! }
    }
}

extension ServeProcess {
    /// The value of the Prometheus sample `name` (with its labels as written), nil when absent.
    func metric(_ sample: String) throws -> Double? {
        let text = try Curl.get(base + "/metrics").text
        for line in text.split(separator: "\n") where line.hasPrefix(sample + " ") {
            return Double(line.dropFirst(sample.count + 1))
        }
        return nil
    }

    /// Waits (at most `timeout` s) until `condition` holds.
    func wait(timeout: Double = 120, file: StaticString = #filePath, line: UInt = #line, until condition: () throws -> Bool) throws {
        let start = Date()
        while Date().timeIntervalSince(start) < timeout {
            if try condition() { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
        XCTFail("timed out waiting: \(log)", file: file, line: line)
        throw CocoaError(.userCancelled)
    }
}

/// `body` run on a thread of its own; `value` waits for its result.
final class Background<T>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: T?

    init(_ body: @escaping @Sendable () -> T) {
        Thread { [self] in
            result = body()
            done.signal()
        }.start()
    }

    var value: T {
        done.wait()
        done.signal()
        return result!
    }
}
