import Imaging
import XCTest

/// Issue #53 item 12: which libjpeg warnings cost an image. The rule (see `decodeJPEG`):
/// every warning does, even "extraneous bytes before marker", which alone loses nothing,
/// because TurboJPEG reports only a decode's first warning: accepting that one would accept a
/// file cut short after it. This checks both halves of that reason.
final class JPEGWarningTests: XCTestCase {
    func testAnyWarningRejectsTheImage() throws {
        let bytes = try Fixtures.bytes("pattern_q80.jpg")
        // The second marker after SOI (the first segment after APP0 or the first table).
        var markers: [Int] = []
        var i = 2
        while i + 3 < bytes.count, markers.count < 2 {
            guard bytes[i] == 0xFF else { break }
            markers.append(i)
            i += 2 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]))
        }
        let at = try XCTUnwrap(markers.last)
        let padded = Array(bytes[..<at]) + [0x12, 0x34, 0x56] + Array(bytes[at...])
        for (name, data) in [("padded.jpg", padded), ("padded-cut.jpg", Array(padded.prefix(padded.count - 40)))] {
            XCTAssertThrowsError(try Image(decoding: data, name: name)) { error in
                guard case ImageError.corruptJPEG(_, let message) = error else { return XCTFail("\(error)") }
                // The cut file reports the first warning too, not its truncation.
                XCTAssertEqual(message, "Corrupt JPEG data: 3 extraneous bytes before marker 0x\(String(bytes[at + 1], radix: 16))", name)
            }
        }
    }
}
