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

    /// Runs the binary (or `executable`, e.g. a shell for a pipeline) with `arguments`, with
    /// `ProcessSupport`'s hang guard set far above any test's run (30 minutes).
    static func run(_ arguments: [String], environment: [String: String]? = nil, stdin: URL? = nil,
                    executable: URL? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> CLIResult {
        try run(executable: executable ?? binary, arguments, environment: environment ?? [:], stdin: stdin, timeout: 1800,
                file: file, line: line)
    }

    /// A new folder, removed at the end of the test.
    static func temporaryFolder(_ testCase: XCTestCase) throws -> URL {
        try TestData.temporaryFolder(testCase, prefix: "darknet-swift-cli")
    }
}
