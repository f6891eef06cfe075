@testable import Darknet
import TestSupport
import XCTest

/// SHA-256 against FIPS 180-4's examples, whole and fed in odd pieces.
final class SHA256Tests: XCTestCase {
    func testFIPSExamples() {
        XCTAssertEqual(SHA256.hex(Array("".utf8)), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(SHA256.hex([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)),
                       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Bytes fed in pieces of 1, 63, 64, 65 and 1000 give the digest of the whole (lengths
    /// around the block and the padding's boundaries: 55, 56, 64, 119, 120).
    func testPiecesGiveTheWholeDigest() {
        var generator = SplitMix64(state: 3)
        for length in [55, 56, 64, 119, 120, 5000] {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let whole = SHA256.hex(bytes)
            for piece in [1, 63, 64, 65, 1000] {
                var hasher = SHA256()
                for start in stride(from: 0, to: length, by: piece) {
                    bytes[start..<min(length, start + piece)].withUnsafeBytes { hasher.update($0) }
                }
                XCTAssertEqual(hasher.finish(), whole, "\(length) bytes in pieces of \(piece)")
            }
        }
    }
}
