import Dispatch
import Foundation
import Imaging
import TestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Frames for the `stream` tests, made at test time from the sample photo with the project's
/// own JPEG encoder.
enum StreamFrames {
    /// `count` JPEG frames: windows of `width`×`height` sliding right by `step` pixels a
    /// frame over weights/data/dog.jpg, scaled by `scale` (0.25 gives 6-8 KB frames).
    static func dog(count: Int, width: Int = 640, height: Int = 480, step: Int = 0, scale: Double = 1,
                    quality: Int = 80) throws -> [[UInt8]] {
        let photo = try Image(contentsOf: try TestData.path("data/dog.jpg"))
        return try (0..<count).map { i in
            var window = Image(width: width, height: height, channels: 3, fill: 0)
            let left = min(i * step, photo.width - width)
            for c in 0..<3 {
                for y in 0..<height {
                    for x in 0..<width { window[x, y, c] = photo[left + x, y, c] }
                }
            }
            if scale != 1 { window = window.resized(width: Int(Double(width) * scale), height: Int(Double(height) * scale)) }
            return try window.jpegData(quality: quality)
        }
    }

    /// The JSON object of one line (nil when it is not a JSON object).
    static func object(_ line: some StringProtocol) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    }
}

extension CLI {
    /// Runs a bash `script` (a pipeline, as the README writes it) with `$0` the binary and
    /// `$1`, `$2`, … the `arguments`.
    static func bash(_ script: String, _ arguments: [String], stdin: URL? = nil) throws -> CLIResult {
        try run(["-c", script, binary.path] + arguments, stdin: stdin, executable: URL(fileURLWithPath: "/bin/bash"))
    }
}

/// `darknet-swift` fed through a pipe while it runs, as a live source feeds it: the test
/// writes frames when it likes and sees each stdout line when it comes, with the time it
/// came (`DispatchTime` nanoseconds, the clock `stream` itself uses).
final class LiveStream: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errorURL: URL
    private let condition = NSCondition()
    private var received: [(line: String, time: UInt64)] = []
    private var reader: Thread?
    private let readerDone = DispatchSemaphore(value: 0)

    init(_ arguments: [String]) throws {
        // A write to a child that died must be an error here, not a SIGPIPE that ends the tests.
        signal(SIGPIPE, SIG_IGN)
        errorURL = FileManager.default.temporaryDirectory.appendingPathComponent("darknet-swift-live-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        process.executableURL = CLI.binary
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorURL)
        try process.run()
        let handle = output.fileHandleForReading
        let thread = Thread { [self] in
            var pending = Data()
            while true {
                let chunk = handle.availableData
                let now = DispatchTime.now().uptimeNanoseconds
                if chunk.isEmpty { break }
                pending += chunk
                condition.lock()
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    received.append((String(decoding: pending[..<newline], as: UTF8.self), now))
                    pending = Data(pending[(newline + 1)...])
                }
                condition.broadcast()
                condition.unlock()
            }
            readerDone.signal()
        }
        thread.start()
        reader = thread
    }

    /// Writes `bytes` to the child's stdin; returns when the write began and ended.
    @discardableResult
    func write(_ bytes: [UInt8]) throws -> (start: UInt64, end: UInt64) {
        let start = DispatchTime.now().uptimeNanoseconds
        try input.fileHandleForWriting.write(contentsOf: Data(bytes))
        return (start, DispatchTime.now().uptimeNanoseconds)
    }

    /// The lines seen so far.
    var lines: [(line: String, time: UInt64)] {
        condition.lock()
        defer { condition.unlock() }
        return received
    }

    /// Waits until `count` lines have come (true) or `timeout` seconds passed (false): the
    /// timeout only turns a stall into a failure instead of a hang.
    func waitForLines(_ count: Int, timeout: Double = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while received.count < count {
            if !condition.wait(until: deadline) { return received.count >= count }
        }
        return true
    }

    /// Waits until a line that `matches` has come (true) or `timeout` seconds passed
    /// (false): the timeout only turns a stall into a failure instead of a hang.
    func waitForLines(where matches: (String) -> Bool, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while !received.contains(where: { matches($0.line) }) {
            if !condition.wait(until: deadline) { return received.contains { matches($0.line) } }
        }
        return true
    }

    /// Closes stdin, waits for the process to exit, returns its status and stderr.
    func finish() throws -> (status: Int32, stderr: String, lines: [(line: String, time: UInt64)]) {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        readerDone.wait()
        let stderr = String(decoding: try Data(contentsOf: errorURL), as: UTF8.self)
        try? FileManager.default.removeItem(at: errorURL)
        return (process.terminationStatus, stderr, lines)
    }
}
