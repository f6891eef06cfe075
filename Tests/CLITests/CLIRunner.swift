import Foundation
import TestSupport
import XCTest

/// Runs the real `darknet-swift` binary built beside the test bundle.
struct CLIResult {
    var status: Int32
    var stdout: String
    var stderr: String
    /// stdout as bytes (for binary output such as `stream --annotate-pipe`).
    var stdoutData = Data()
    /// The process died of a signal (a trap, a crash): `status` is then the signal number.
    var signaled = false
}

enum CLI {
    static var binary: URL {
        #if os(macOS)
        let folder = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }!.bundleURL.deletingLastPathComponent()
        #else
        let folder = Bundle.main.bundleURL
        #endif
        return folder.appendingPathComponent("darknet-swift")
    }

    /// Runs the binary (or `executable`, e.g. a shell for a pipeline) with `arguments`.
    static func run(_ arguments: [String], environment: [String: String]? = nil, stdin: URL? = nil,
                    executable: URL? = nil) throws -> CLIResult {
        let process = Process()
        process.executableURL = executable ?? binary
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["COLUMNS"] = "100"
        for (key, value) in environment ?? [:] { env[key] = value }
        process.environment = env
        // Files rather than pipes: a chatty child can never block on a full pipe.
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
        process.waitUntilExit()
        try out.close()
        try err.close()
        let outData = try Data(contentsOf: outURL), errData = try Data(contentsOf: errURL)
        return CLIResult(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self), stdoutData: outData,
                         signaled: process.terminationReason == .uncaughtSignal)
    }

    /// A new folder, removed at the end of the test.
    static func temporaryFolder(_ testCase: XCTestCase) throws -> URL {
        try TestData.temporaryFolder(testCase, prefix: "darknet-swift-cli")
    }
}
