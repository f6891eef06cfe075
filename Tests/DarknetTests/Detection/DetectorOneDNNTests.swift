@testable import Darknet
import Foundation
import Imaging
import Kernels
import TestSupport
import XCTest

/// yolov3-tiny (real weights) with its f32 im2col and 1×1 products on oneDNN's `dnnl_sgemm`
/// (`GEMMLibrary.onednn`): darknet's detections on dog.jpg, the OpenBLAS detector's on every
/// sample photo within the project's tolerances, and the same bits on any thread count, run
/// after run and in a batch as alone.
final class DetectorOneDNNTests: XCTestCase {
    static let photos = ["dog", "eagle", "giraffe", "horses", "kite", "person", "scream"]

    static func detector(_ gemm: GEMMLibrary, algorithm: ConvolutionAlgorithm = .auto, threads: Int = 2) throws -> Detector {
        try Detector(cfg: try TestData.cfg("yolov3-tiny"), weights: try TestData.path("yolov3-tiny.weights"),
                     options: DetectorOptions(execution: ExecutionOptions(threads: threads, convolutionAlgorithm: algorithm,
                                                                          gemm: gemm)))
    }

    /// On oneDNN, auto keeps Winograd where it chose it and names the others `+dnnl_sgemm`;
    /// im2col names all 13.
    func testRoutesAreNamed() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3-tiny"))
        let options = ExecutionOptions(gemm: .onednn)
        let auto = model.convolutionMethods(options)
        XCTAssertEqual(auto, model.convolutionMethods(ExecutionOptions()), "the library does not change the methods")
        let names = auto.compactMap { $0.map(options.routeName) }
        XCTAssertEqual(names.count, 13)
        XCTAssertTrue(names.allSatisfy { $0.hasSuffix("+dnnl_sgemm") || $0.hasPrefix("winograd") }, "\(names)")
        XCTAssertTrue(names.contains("gemm+dnnl_sgemm") && names.contains("winograd"), "\(names)")
        var plain = options
        plain.convolutionAlgorithm = .im2col
        XCTAssertEqual(Set(model.convolutionMethods(plain).compactMap { $0.map(plain.routeName) }),
                       ["im2col-bands+dnnl_sgemm", "im2col+dnnl_sgemm", "gemm+dnnl_sgemm"])
        XCTAssertEqual(ExecutionOptions().routeName(.im2col), "im2col")
    }

    /// darknet's detections on dog.jpg (auto and im2col everywhere), and on every photo the
    /// OpenBLAS detector's: the same classes, confidences within 0.5 points, boxes within 1e-3.
    func testMatchesDarknetAndOpenBLAS() throws {
        _ = try TestTools.requireOneDNN(OneDNN.sgemmLibrary)
        let golden = try JSONDecoder().decode(DetectionGolden.self,
                                              from: Data(contentsOf: try TestData.fixture("yolov3-tiny-dog.json")))
        let dog = try Image(contentsOf: try TestData.path("data/dog.jpg"))
        for algorithm in [ConvolutionAlgorithm.auto, .im2col] {
            let onednn = try Self.detector(.onednn, algorithm: algorithm)
            assertMatchesDarknet(try onednn.detect(in: dog), golden, image: dog)
            let openblas = try Self.detector(.openblas, algorithm: algorithm)
            var compared = 0
            for name in Self.photos {
                let image = try Image(contentsOf: try TestData.path("data/\(name).jpg"))
                let expected = try openblas.detect(in: image), got = try onednn.detect(in: image)
                XCTAssertEqual(got.map(\.classId), expected.map(\.classId), "\(name) \(algorithm)")
                for (ours, theirs) in zip(got, expected) {
                    XCTAssertEqual(ours.confidence, theirs.confidence, accuracy: 0.005, "\(name) \(algorithm)")
                    for (a, b) in zip([ours.box.x, ours.box.y, ours.box.width, ours.box.height],
                                      [theirs.box.x, theirs.box.y, theirs.box.width, theirs.box.height]) {
                        XCTAssertEqual(a, b, accuracy: 1e-3, "\(name) \(algorithm)")
                    }
                    compared += 1
                }
            }
            XCTAssertGreaterThanOrEqual(compared, 15, "the photos have detections to compare")
        }
    }

    /// The same bits on 1, 2 and 3 workers, twice each, and for each image of a batch as for
    /// the image alone (im2col everywhere, so every product runs on oneDNN).
    func testBitsDoNotDependOnThreadsRunsOrBatch() throws {
        _ = try TestTools.requireOneDNN(OneDNN.sgemmLibrary)
        try assertSameBitsOnThreadsRunsAndBatch { try Self.detector(.onednn, algorithm: .im2col, threads: $0) }
    }
}
