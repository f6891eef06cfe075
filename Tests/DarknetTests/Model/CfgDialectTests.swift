@testable import Darknet
import YOLO
import Foundation
import TestSupport
import XCTest

/// The dialect decision (`DialectDecision.decide`) and what it picks (`InputFitting.decide`,
/// the batch-norm folding), on cfg texts written for each rule and on pjreddie's own files.
final class CfgDialectTests: XCTestCase {
    private let net = "[net]\nwidth=32\nheight=32\nchannels=3\n"

    private func model(_ body: String, net: String? = nil) throws -> ModelDescription {
        try ModelDescription(text: (net ?? self.net) + body, file: "t.cfg")
    }

    func testPjreddieKeysStayPjreddie() throws {
        let model = try model("[convolutional]\nfilters=18\nsize=1\nactivation=leaky\nbatch_normalize=1\n[yolo]\nmask=0,1\nanchors=1,2,3,4\nclasses=4\nnum=2\njitter=.3\nignore_thresh=.7\n")
        XCTAssertEqual(model.dialect, DialectDecision(dialect: .pjreddie))
        XCTAssertEqual(model.inputFitting.mapping, .letterbox)
        XCTAssertEqual(model.inputFitting.reason, "no letter_box in a pjreddie cfg: darknet detect letterboxes")
        guard case .convolutional(let conv) = model.layers[0].kind else { return XCTFail() }
        XCTAssertEqual(conv.batchNormFold, .pjreddie)
    }

    /// Each kind of evidence, at its line (line 5 is the first after the 4-line [net]).
    func testEachAlexeyABFeatureDecidesWithItsLine() throws {
        let cases: [(body: String, what: String, line: Int)] = [
            ("[convolutional]\nfilters=18\nsize=1\n[yolo]\nclasses=4\nnum=2\nmask=0,1\nscale_x_y=1.05\n", "key 'scale_x_y'", 12),
            ("[convolutional]\nfilters=4\nsize=1\n[route]\nlayers=-1\ngroups=2\ngroup_id=1\n", "key 'groups'", 10),
            ("[convolutional]\nfilters=4\nsize=1\nactivation=mish\n", "activation 'mish'", 8),
            ("[convolutional]\nfilters=4\nsize=1\nactivation=silu\n", "activation 'silu'", 8),
            ("[convolutional]\nfilters=4\nsize=1\n[sam]\nfrom=-1\n", "section [sam]", 8),
            ("[maxpool]\nsize=2\nstride_x=2\nstride_y=1\n", "key 'stride_x'", 7),
        ]
        for (body, what, line) in cases {
            let model = try model(body)
            XCTAssertEqual(model.dialect.dialect, .alexeyAB, what)
            XCTAssertEqual(model.dialect.what, what)
            XCTAssertEqual(model.dialect.evidence?.line, line, what)
            XCTAssertEqual(model.inputFitting.mapping, .stretch, what)
            XCTAssertEqual(model.inputFitting.reason, "no letter_box in an AlexeyAB cfg (\(what) at line \(line)): detector test resizes")
        }
        let net = try model("[convolutional]\nfilters=4\nsize=1\n", net: "[net]\nwidth=32\nheight=32\nchannels=3\nmosaic=1\n")
        XCTAssertEqual(net.dialect.what, "key 'mosaic'")
        XCTAssertEqual(net.dialect.evidence?.line, 5)
    }

    /// `logistic` is the dialect's formula in every layer that applies one: pjreddie's double one
    /// in his dialect, AlexeyAB's Float one in his; no cfg can name the latter directly.
    func testLogisticIsTheDialectsFormula() throws {
        let body = "[convolutional]\nfilters=18\nsize=1\nactivation=logistic\n[shortcut]\nfrom=-1\nactivation=logistic\n"
            + "[yolo]\nmask=0,1\nanchors=1,2,3,4\nclasses=4\nnum=2\n"
        for (extra, expected) in [("", Activation.logistic), ("mosaic=1\n", .alexeyABLogistic)] {
            let model = try model(body, net: net + extra)
            guard case .convolutional(let conv) = model.layers[0].kind, case .shortcut(let shortcut) = model.layers[1].kind,
                  case .yolo(let yolo) = model.layers[2].kind else { return XCTFail() }
            XCTAssertEqual([conv.activation, shortcut.activation, yolo.logistic], [expected, expected, expected], extra)
            XCTAssertEqual(conv.activation.cfgName, "logistic")
        }
        XCTAssertThrowsError(try model("[convolutional]\nfilters=4\nsize=1\nactivation=logistic (alexeyab)\n"))
        XCTAssertThrowsError(try model("[convolutional]\nfilters=4\nsize=1\nactivation=logistic (AlexeyAB)\n"))
    }

    /// A key neither darknet reads (a typo) is a warning, not evidence; the first evidence in
    /// file order decides.
    func testUnknownKeysAreNotEvidenceAndTheFirstEvidenceWins() throws {
        let typo = try model("[convolutional]\nfilters=4\nsize=1\nstrid=2\n")
        XCTAssertEqual(typo.dialect.dialect, .pjreddie)
        XCTAssertEqual(typo.warnings.map(\.location.key), ["strid"])
        let two = try model("[convolutional]\nfilters=4\nsize=1\nactivation=swish\n[convolutional]\nfilters=4\nsize=1\nactivation=mish\n")
        XCTAssertEqual(two.dialect.what, "activation 'swish'")
    }

    /// `[net] letter_box` decides in either dialect; any non-zero value letterboxes, as
    /// AlexeyAB's detector test reads it.
    func testLetterBoxKeyDecidesTheFitting() throws {
        for (value, mapping) in [("1", InputMapping.letterbox), ("0", .stretch), ("2", .letterbox)] {
            let model = try model("[convolutional]\nfilters=4\nsize=1\nactivation=mish\n",
                                  net: "[net]\nwidth=32\nheight=32\nchannels=3\nletter_box=\(value)\n")
            XCTAssertEqual(model.inputFitting.mapping, mapping, value)
            XCTAssertEqual(model.inputFitting.reason, "[net] letter_box=\(mapping == .letterbox ? 1 : 0) at line 5")
        }
        XCTAssertEqual(InputFitting.decide(letterBox: nil, at: nil, dialect: DialectDecision(dialect: .alexeyAB)).mapping, .stretch)
        XCTAssertEqual(InputFitting.decide(letterBox: false, at: nil, dialect: DialectDecision(dialect: .pjreddie)).mapping, .stretch)
    }

    /// AlexeyAB's dialect folds batch norm as his fuse_conv_batchnorm: `sqrt(variance + .00001)`;
    /// pjreddie's `sqrt(variance) + .000001`. With variance 1e-6 the factors differ threefold.
    func testBatchNormFoldFollowsTheDialect() throws {
        let ab = try model("[convolutional]\nfilters=4\nsize=1\nbatch_normalize=1\nactivation=mish\n")
        guard case .convolutional(let conv) = ab.layers[0].kind else { return XCTFail() }
        XCTAssertEqual(conv.batchNormFold, .alexeyAB)
        let pj = ConvolutionWeights.foldingFactors(biases: [0.5], scales: [2], rollingMean: [0.25], rollingVariance: [1e-6])
        let alexey = ConvolutionWeights.foldingFactors(biases: [0.5], scales: [2], rollingMean: [0.25], rollingVariance: [1e-6],
                                                       fold: .alexeyAB)
        XCTAssertEqual(pj.factors[0], 2 / (Double(Float(1e-6)).squareRoot() + Double(Float(0.000001))), accuracy: 1e-9)
        XCTAssertEqual(alexey.factors[0], 2 / (Double(Float(1e-6)) + 0.00001).squareRoot(), accuracy: 1e-9)
        XCTAssertEqual(alexey.biases[0], Float(0.5 - 2 * 0.25 / (Double(Float(1e-6)) + 0.00001).squareRoot()))
        XCTAssertGreaterThan(pj.factors[0] / alexey.factors[0], 3)
        // AlexeyAB's [batchnorm] reads biases before the statistics; pjreddie's has none.
        let layer = try model("[convolutional]\nfilters=4\nsize=1\nactivation=mish\n[batchnorm]\n").layers[1]
        XCTAssertEqual(WeightsReader.parts(of: layer, in: try model("[convolutional]\nfilters=4\nsize=1\nactivation=mish\n[batchnorm]\n"))?
            .map(\.name), ["biases", "scales", "rolling mean", "rolling variance"])
        let pjModel = try model("[convolutional]\nfilters=4\nsize=1\n[batchnorm]\n")
        XCTAssertEqual(WeightsReader.parts(of: pjModel.layers[1], in: pjModel)?.map(\.name), ["scales", "rolling mean", "rolling variance"])
    }

    /// Every cfg Debian's darknet ships (pjreddie's) is in pjreddie's dialect and letterboxes,
    /// but YOLOv1's, which `darknet yolo test` resizes.
    func testDebiansCfgsArePjreddie() throws {
        let folder = URL(fileURLWithPath: try TestData.path("cfg"))
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".cfg") }.sorted()
        XCTAssertGreaterThan(files.count, 20)
        for file in files {
            guard let model = try? ModelDescription(contentsOf: folder.appendingPathComponent(file).path) else { continue }
            XCTAssertEqual(model.dialect.dialect, .pjreddie, "\(file): \(model.dialect)")
            XCTAssertEqual(model.inputFitting.mapping, file.hasPrefix("yolov1") ? .stretch : .letterbox, file)
        }
    }
}
