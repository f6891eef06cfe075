import Darknet
import Foundation
import Imaging
import TestSupport
import XCTest

/// Issue #53 item 9: the library throws where it used to trap or answer silently wrong.
final class LibraryThrowsTests: XCTestCase {
    static let cfg = CheapDetector.cfg(size: 32, pool: 8)

    func model() throws -> ModelDescription { try ModelDescription(text: Self.cfg, file: "tiny.cfg") }

    /// 512 threads is one more than the worker pool runs: a typed error, not a precondition.
    func testTooManyThreadsThrows() throws {
        let model = try model()
        let bytes = SyntheticWeights.bytes(for: model, seed: 1)
        let prepare = { (threads: Int) in
            try bytes.withUnsafeBytes {
                try PreparedModel(model: model, weightsBytes: $0, options: ExecutionOptions(threads: threads))
            }
        }
        XCTAssertThrowsError(try prepare(ExecutionOptions.maximumThreads + 1)) { error in
            XCTAssertEqual(error as? NetworkError, .tooManyThreads(512, maximum: 511))
        }
        XCTAssertEqual(try prepare(ExecutionOptions.maximumThreads).options.threads, 511)
        var options = ExecutionOptions()
        options.threads = 100_000
        XCTAssertThrowsError(try bytes.withUnsafeBytes { try PreparedModel(model: model, weightsBytes: $0, options: options) })
    }

    /// A row stride of Int.max: an error whose own message does not overflow.
    func testHugeRowStrideThrows() {
        let pixels = [UInt8](repeating: 0, count: 64)
        XCTAssertThrowsError(try Image(pixels: pixels, width: 2, height: 2, bytesPerRow: Int.max, layout: .rgb)) { error in
            XCTAssertTrue(String(describing: error).contains("more than \(Int.max)"), "\(error)")
        }
    }

    /// `detect(prepared:imageSizes:)` with counts that differ, or a size below 1 × 1, throws
    /// instead of answering for fewer images or mapping boxes onto nothing.
    func testPreparedDetectionChecksItsSizes() throws {
        let model = try model()
        let bytes = SyntheticWeights.bytes(for: model, seed: 1)
        let detector = try bytes.withUnsafeBytes { try Detector(cfg: Self.cfg, weights: $0, name: "tiny") }
        let photo = Image(width: 40, height: 30, channels: 3, data: [Float](repeating: 0.5, count: 3 * 40 * 30))
        let input = detector.prepare(photo)
        XCTAssertEqual(try detector.detect(prepared: [input, input], imageSizes: [(40, 30), (40, 30)]).count, 2)
        XCTAssertThrowsError(try detector.detect(prepared: [input, input], imageSizes: [(40, 30)])) { error in
            XCTAssertEqual(error as? DetectorError, .imageSizeCount(inputs: 2, sizes: 1))
        }
        XCTAssertThrowsError(try detector.detect(prepared: [input], imageSizes: [(40, 30), (40, 30)]))
        XCTAssertThrowsError(try detector.detect(prepared: [input], imageSizes: [(0, 30)])) { error in
            XCTAssertEqual(error as? DetectorError, .invalidImageSize(index: 0, width: 0, height: 30))
        }
        XCTAssertThrowsError(try detector.detect(prepared: [input], imageSizes: [(40, -3)]))
    }
}
