@testable import Darknet
import Foundation
import TestSupport
import XCTest

/// The library names a cfg and weights given the wrong way round, as the CLI does, before
/// either is parsed (`ModelFileKind.check`, in `Detector`, `Classifier` and `Network`).
final class ModelFileKindTests: XCTestCase {
    private func files() throws -> (cfg: String, weights: String) {
        let folder = try TestData.temporaryFolder(self, prefix: "model-file-kind")
        let cfg = folder.appendingPathComponent("m.cfg").path
        try "# a model\n\n[net]\nwidth=32\nheight=32\nchannels=3\n[convolutional]\nfilters=1\nsize=1\n".write(toFile: cfg, atomically: true, encoding: .utf8)
        var header: [UInt8] = []
        for word in [Int32(0), 2, 0] { withUnsafeBytes(of: word.littleEndian) { header += $0 } }
        let weights = folder.appendingPathComponent("m.weights").path
        try Data(header + [UInt8](repeating: 0, count: 64)).write(to: URL(fileURLWithPath: weights))
        return (cfg, weights)
    }

    func testSwappedFilesAreNamed() throws {
        let (cfg, weights) = try files()
        XCTAssertThrowsError(try Detector(cfg: weights, weights: cfg)) { error in
            XCTAssertEqual(error as? ModelFileError, .swapped(cfg: weights, weights: cfg))
            XCTAssertEqual("\(error)", "cfg and weights seem swapped: \(weights) is a weights file and \(cfg) a cfg")
        }
        XCTAssertThrowsError(try Classifier(cfg: weights, weights: weights)) { error in
            XCTAssertEqual(error as? ModelFileError, .weightsGivenAsCfg(weights))
        }
        XCTAssertThrowsError(try Network(cfg: cfg, weights: cfg)) { error in
            XCTAssertEqual(error as? ModelFileError, .cfgGivenAsWeights(cfg))
            XCTAssertEqual("\(error)", "\(cfg): this is a Darknet cfg, not a weights file")
        }
        XCTAssertNoThrow(try ModelFileKind.check(cfg: cfg, weights: weights))
    }

    /// A missing weights file is worded as every file error of the project, not as strerror.
    func testMissingWeightsIsNoSuchFile() throws {
        let (cfg, _) = try files()
        XCTAssertThrowsError(try Network(cfg: cfg, weights: cfg + ".missing")) { error in
            XCTAssertEqual("\(error)", "\(cfg).missing: cannot read weights: no such file")
        }
    }
}
