import Foundation
import XCTest

/// Programs some tests run beside the binary. A missing one skips the test with the command
/// that installs it (never a failure: `tools/test` installs them all through tools/install-deps,
/// and ffmpeg is installed by .ci/run).
public enum TestTools {
    /// The Python of `<package>/.venv-coco` (pycocotools and Pillow), made by tools/install-deps.
    public static var cocoPython: String {
        TestData.packageRoot.appendingPathComponent(".venv-coco/bin/python").path
    }

    /// `cocoPython`, or a skip naming tools/install-deps.
    public static func requireCocoPython(file: StaticString = #filePath, line: UInt = #line) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: cocoPython) else {
            throw Skip.because("\(cocoPython) is missing: run tools/install-deps (it makes the venv with pycocotools and Pillow)",
                               file: file, line: line)
        }
        return cocoPython
    }

    /// The first of `names` found in the usual binary folders, or a skip with `install`.
    public static func require(_ name: String, install: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let folders = ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin", "/bin"]
        guard let path = folders.map({ "\($0)/\(name)" }).first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw Skip.because("\(name) is not installed (\(install))", file: file, line: line)
        }
        return path
    }
}

extension TestTools {
    /// The library `loaded` (`OneDNN.loaded`), or what a test throws when oneDNN, which the full
    /// tier installs (`tools/test` runs `tools/install-deps --int8`), cannot be loaded: a skip
    /// naming the reason in the fast tier, a recorded failure under `DARKNET_SWIFT_REQUIRE_DATA`.
    public static func requireOneDNN<Library, Failure: CustomStringConvertible>(_ loaded: Result<Library, Failure>,
                                                                                 file: StaticString = #filePath,
                                                                                 line: UInt = #line) throws -> Library {
        switch loaded {
        case .success(let library): return library
        case .failure(let reason):
            let message = "int8 tests need oneDNN: \(reason)"
            guard TestData.isRequired else { throw Skip.because(message, file: file, line: line) }
            XCTFail("\(message); DARKNET_SWIFT_REQUIRE_DATA is set and tools/test installs it", file: file, line: line)
            throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: message])
        }
    }
}
