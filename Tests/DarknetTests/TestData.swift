import Foundation
import TestSupport
import XCTest

/// The fetched-data lookup is `TestSupport.TestData`; the committed goldens are this target's.
extension TestData {
    /// A committed golden in Tests/DarknetTests/Fixtures (its absence is a failure, never a skip).
    static func fixture(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        guard let url = Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil) else {
            XCTFail("fixture \(name) is missing from Tests/DarknetTests/Fixtures (tools/regen-goldens makes it)", file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        return url
    }
}

/// The shared generator, not the engine's identical internal one `@testable import Darknet`
/// also shows (the same numbers either way).
typealias SplitMix64 = TestSupport.SplitMix64
