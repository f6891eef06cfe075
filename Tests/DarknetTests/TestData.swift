import Foundation
import XCTest

/// Fetched data (weights, cfgs, photos) for tests: `$DARKNET_SWIFT_DATA`, else `<package>/weights`.
/// Missing files fail the test with the command that fetches them (CI fetches first).
enum TestData {
    static var root: URL {
        if let path = ProcessInfo.processInfo.environment["DARKNET_SWIFT_DATA"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("weights")
    }

    static func path(_ relative: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let url = root.appendingPathComponent(relative)
        guard FileManager.default.fileExists(atPath: url.path) else {
            XCTFail("\(url.path) is missing: run tools/fetch (or set DARKNET_SWIFT_DATA)", file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        return url.path
    }

    static func cfg(_ name: String) throws -> String { try path("cfg/\(name).cfg") }

    /// A committed golden in Tests/DarknetTests/Fixtures (its absence is a failure, never a skip).
    static func fixture(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        guard let url = Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil) else {
            XCTFail("fixture \(name) is missing from Tests/DarknetTests/Fixtures (tools/regen-goldens makes it)", file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        return url
    }

    /// A temporary file with `contents`, removed at the end of the test.
    static func temporaryFile(_ contents: Data, name: String = "file", testCase: XCTestCase) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("darknet-swift-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        testCase.addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent(name)
        try contents.write(to: url)
        return url.path
    }
}
