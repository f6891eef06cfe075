import Darknet
import Dispatch
import Foundation
import Imaging
import TestSupport
import XCTest
import YOLO

/// Detectors made with different options (threads, input sizes, mappings, convolution methods)
/// run at the same time in one process, each with its own options and the answers it gives
/// alone: options are values fixed when a detector is made, never process-wide settings that
/// the last detector made overwrites. CI runs this file under ThreadSanitizer (small inputs).
final class DetectorConcurrencyTests: XCTestCase {
    static let options: [DetectorOptions] = [
        DetectorOptions(threshold: 0.3, width: 160, height: 160, execution: ExecutionOptions(threads: 2)),
        DetectorOptions(threshold: 0.3, width: 128, height: 128, mapping: .stretch,
                        execution: ExecutionOptions(threads: 1, convolutionAlgorithm: .im2col)),
        DetectorOptions(threshold: 0.3, width: 192, height: 160,
                        execution: ExecutionOptions(threads: 3, convolutionAlgorithm: .winogradStreamed)),
    ]

    func makeDetector(_ options: DetectorOptions) throws -> Detector {
        try Detector(cfg: try TestData.cfg("yolov3-tiny"), weights: try TestData.path("yolov3-tiny.weights"), options: options)
    }

    /// Each detector alone, then all of them at once (four calls each) while another thread
    /// keeps making detectors with other thread counts: every call gives its alone-answers bit
    /// for bit, and every detector keeps its own thread count.
    func testDetectorsWithDifferentOptionsRunSideBySide() throws {
        let image = try Image(contentsOf: try TestData.path("data/dog.jpg"))
        let alone = try Self.options.map { try makeDetector($0).detect(in: image) }
        XCTAssertTrue(alone.allSatisfy { !$0.isEmpty })
        let detectors = try Self.options.map(makeDetector)
        let rounds = 4, calls = Self.options.count * rounds
        let results = ResultBox(count: calls)
        let cfg = try TestData.cfg("yolov3-tiny"), weights = try TestData.path("yolov3-tiny.weights")
        DispatchQueue.concurrentPerform(iterations: calls + 1) { i in
            guard i < calls else {
                // The leak this guards against: a new detector used to set every detector's threads.
                for threads in [1, 4, 1] {
                    _ = try? Detector(cfg: cfg, weights: weights,
                                      options: DetectorOptions(width: 96, height: 96, execution: ExecutionOptions(threads: threads)))
                }
                return
            }
            results.set(i, Result { try detectors[i % detectors.count].detect(in: image) })
        }
        for i in 0..<calls {
            let expected = alone[i % detectors.count]
            let got = try results.get(i).get()
            XCTAssertEqual(got, expected, "call \(i)")
            XCTAssertEqual(got.map(\.confidence.bitPattern), expected.map(\.confidence.bitPattern), "call \(i)")
        }
        XCTAssertEqual(detectors.map(\.prepared.options.threads), [2, 1, 3])
        XCTAssertEqual(detectors.map(\.options.execution.convolutionAlgorithm), [.auto, .im2col, .winogradStreamed])
    }

    /// A detector that asks for no thread count gets one per core (OpenBLAS's default), whatever
    /// detectors were made before it.
    func testDefaultThreadsDoNotDependOnEarlierDetectors() throws {
        let before = ExecutionOptions().threads
        _ = try makeDetector(DetectorOptions(width: 96, height: 96, execution: ExecutionOptions(threads: 1)))
        let detector = try makeDetector(DetectorOptions(width: 96, height: 96))
        XCTAssertEqual(detector.prepared.options.threads, before)
        XCTAssertEqual(ExecutionOptions().threads, before)
        if ProcessInfo.processInfo.environment["OPENBLAS_NUM_THREADS"] == nil {
            XCTAssertEqual(before, ProcessInfo.processInfo.activeProcessorCount)
        }
    }
}
