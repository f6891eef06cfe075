import TestSupport
import XCTest
@testable import Imaging

final class ImageWriterTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("imaging-write-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func testJPEGDataIsWhatWriteWrites() throws {
        var image = Image(width: 5, height: 3, channels: 3, fill: 0.25)
        image.data[7] = 1
        let path = dir.appendingPathComponent("same.jpg").path
        try image.write(to: path, jpegQuality: 80)
        XCTAssertEqual(try image.jpegData(quality: 80), Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        XCTAssertThrowsError(try Image(width: 2, height: 2, channels: 4, fill: 0).jpegData())
    }

    func testUnknownExtension() {
        let path = dir.appendingPathComponent("out.bmp").path
        XCTAssertThrowsError(try Image(width: 2, height: 2, channels: 3, fill: 0).write(to: path)) { error in
            XCTAssertEqual(error as? ImageError, .unsupportedExtension(path: path))
            XCTAssertTrue("\(error)".contains("out.bmp"))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    }

    func testChannelCountAndEmptyImageRejected() {
        let path = dir.appendingPathComponent("x.png").path
        XCTAssertThrowsError(try Image(width: 2, height: 2, channels: 4, fill: 0).write(to: path)) { error in
            guard case ImageError.unencodable(path, _) = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try Image(width: 0, height: 2, channels: 3, fill: 0).write(to: path))
    }

    func testMissingFolderIsWriteFailure() {
        let path = dir.appendingPathComponent("no/such/folder/x.jpg").path
        XCTAssertThrowsError(try Image(width: 2, height: 2, channels: 3, fill: 0).write(to: path)) { error in
            guard case ImageError.writeFailed(path, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.hasSuffix(": no such file"), "the project's words, not Foundation's: \(reason)")
        }
    }

    /// darknet's save_image: (unsigned char)(255 * v), values clamped first here.
    func testByteConversionTruncatesLikeDarknetAndClamps() {
        let image = Image(width: 6, height: 1, channels: 1, data: [0.999, 1.5, -0.2, .nan, 0.5, Float(7) / 255])
        XCTAssertEqual(image.interleavedBytes(), [254, 255, 0, 0, 127, 7])
    }

    /// The encoder writes in one pass into `pngSizeBound` bytes: noise (which deflate cannot
    /// shrink, the bound's worst case) and a flat image both round-trip, within the bound, in
    /// RGB and gray, including a one-pixel image.
    func testPNGOfNoiseAndFlatImagesRoundTripsWithinTheBound() throws {
        var state: UInt32 = 7
        for (width, height, channels) in [(301, 97, 3), (64, 64, 1), (1, 1, 3)] {
            let noise = (0..<width * height * channels).map { _ -> UInt8 in
                state = state &* 1_664_525 &+ 1_013_904_223
                return UInt8(truncatingIfNeeded: state >> 24)
            }
            for pixels in [noise, [UInt8](repeating: 200, count: noise.count)] {
                let encoded = try encodePNG(pixels, width: width, height: height, channels: channels, path: "x.png")
                XCTAssertLessThanOrEqual(encoded.count, pngSizeBound(width: width, height: height, channels: channels))
                let path = dir.appendingPathComponent("n\(width)-\(channels).png").path
                try Data(encoded).write(to: URL(fileURLWithPath: path))
                let back = try Image(contentsOf: path)
                XCTAssertEqual([back.width, back.height], [width, height])
                let expected = channels == 3 ? pixels : pixels.flatMap { [$0, $0, $0] }
                XCTAssertEqual(back.interleavedBytes(), expected, "\(width)×\(height)×\(channels)")
            }
        }
    }

    func testGrayPNGRoundTripReplicatesOnRead() throws {
        let gray = Image(width: 3, height: 2, channels: 1, data: [0, 0.2, 0.4, 0.6, 0.8, 1].map { Float(UInt8($0 * 255)) / 255 })
        let path = dir.appendingPathComponent("g.png").path
        try gray.write(to: path)
        let back = try Image(contentsOf: path)
        XCTAssertEqual(back.channels, 3)
        for c in 0..<3 { XCTAssertEqual(Array(back.data[(c * 6)..<(c * 6 + 6)]), gray.data) }
    }

    func testOverwritesExistingFileAndLeavesNoTemporaries() throws {
        let path = dir.appendingPathComponent("same.png").path
        try Image(width: 2, height: 2, channels: 3, fill: 0).write(to: path)
        try Image(width: 3, height: 1, channels: 3, fill: 1).write(to: path)
        let back = try Image(contentsOf: path)
        XCTAssertEqual(back, Image(width: 3, height: 1, channels: 3, fill: 1))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["same.png"])
    }

    /// A write that fails half-way (a full disk: here `RLIMIT_FSIZE` of 4 KB with SIGXFSZ
    /// ignored, so write(2) fails with EFBIG) leaves no temporary file behind (issue #31).
    func testFailedWriteLeavesNoTemporary() throws {
        var generator = SplitMix64(seed: 31)
        let noise = Image(width: 200, height: 200, channels: 3, data: (0..<120_000).map { _ in Float(generator.next() % 256) / 255 })
        let path = dir.appendingPathComponent("big.png").path
        let previous = signal(SIGXFSZ, SIG_IGN)
        var saved = rlimit()
        #if os(Linux)
        let resource = __rlimit_resource_t(RLIMIT_FSIZE.rawValue)
        #else
        let resource = RLIMIT_FSIZE
        #endif
        getrlimit(resource, &saved)
        var small = saved
        small.rlim_cur = 4096
        setrlimit(resource, &small)
        let thrown: Error?
        do { try noise.write(to: path); thrown = nil } catch { thrown = error }
        setrlimit(resource, &saved)
        signal(SIGXFSZ, previous)
        guard case .writeFailed(let failed, _) = thrown as? ImageError else { return XCTFail("\(String(describing: thrown))") }
        XCTAssertEqual(failed, path)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [])
    }
}
