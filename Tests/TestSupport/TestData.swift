import Foundation
import XCTest

/// Fetched data (weights, cfgs, photos) for tests: `$DARKNET_SWIFT_DATA`, else `<package>/weights`,
/// laid out as `tools/fetch` leaves it (`cfg/<name>.cfg`, `data/<photo>.jpg`, `yolov3-tiny.weights`).
///
/// A missing file skips the test, naming the file and `tools/fetch` (the fast tier: plain `swift
/// test` on a fresh clone). With `DARKNET_SWIFT_REQUIRE_DATA=1` (`tools/test`, so CI) it fails
/// the test instead, so a broken fetch cannot pass as a run of skips.
public enum TestData {
    /// The data folder.
    public static var root: URL {
        if let path = ProcessInfo.processInfo.environment["DARKNET_SWIFT_DATA"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return packageRoot.appendingPathComponent("weights")
    }

    /// The repository's root folder (found from this file's path, not the working directory).
    public static var packageRoot: URL {
        // <root>/Tests/TestSupport/TestData.swift
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// `DARKNET_SWIFT_REQUIRE_DATA` is set (to anything but empty or 0): missing data fails.
    public static var isRequired: Bool {
        let value = ProcessInfo.processInfo.environment["DARKNET_SWIFT_REQUIRE_DATA"] ?? ""
        return !value.isEmpty && value != "0"
    }

    /// The path of `relative` in the data folder; skips the test (fails it when data is
    /// required) when the file is not there.
    public static func path(_ relative: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let url = root.appendingPathComponent(relative)
        guard FileManager.default.fileExists(atPath: url.path) else { throw missing(url.path, file: file, line: line) }
        return url.path
    }

    /// `cfg/<name>.cfg` in the data folder (see `path`).
    public static func cfg(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        try path("cfg/\(name).cfg", file: file, line: line)
    }

    /// What a test throws when `path` is missing: an `XCTSkip`, or under
    /// `DARKNET_SWIFT_REQUIRE_DATA` a recorded failure and an error that ends the test.
    public static func missing(_ path: String, file: StaticString = #filePath, line: UInt = #line) -> Error {
        let reason = "\(path) is not fetched: run tools/fetch (or set DARKNET_SWIFT_DATA to a folder it filled)"
        guard isRequired else { return Skip.because(reason, file: file, line: line) }
        XCTFail("\(reason); DARKNET_SWIFT_REQUIRE_DATA is set, so missing data is a failure", file: file, line: line)
        return CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path])
    }

    /// A temporary file with `contents`, removed at the end of the test.
    public static func temporaryFile(_ contents: Data, name: String = "file", testCase: XCTestCase) throws -> String {
        let url = try temporaryFolder(testCase).appendingPathComponent(name)
        try contents.write(to: url)
        return url.path
    }

    /// A new empty folder, removed at the end of the test.
    public static func temporaryFolder(_ testCase: XCTestCase, prefix: String = "darknet-swift-tests") throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        testCase.addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return folder
    }
}
