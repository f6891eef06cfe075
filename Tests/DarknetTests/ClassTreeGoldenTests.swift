@testable import Darknet
import Foundation
import Imaging
import TestSupport
import XCTest
import YOLO

/// YOLO9000's class tree (`tree=`) against Debian's libdarknet (`tools/regen-goldens tree`) on
/// the project's own cfgs: Fixtures/zoo6-tree.cfg (a `[region]` of 14 tree classes) and
/// zoo6-tree-classifier.cfg (a `[softmax]` across the tree's groups), both naming
/// Fixtures/classes-14.tree. The oracle runs the `[region]` as darknet's GPU forward does
/// (its CPU forward mis-indexes the groups, pjreddie/darknet#143; see the oracle's
/// `region_tree_as_gpu`). AlexeyAB's answers on the same shapes are in `AlexeyABGoldenTests`.
final class ClassTreeGoldenTests: XCTestCase {
    private func load(_ name: String, golden: String) throws -> (ModelDescription, ModelWeights, LayerGolden) {
        let layers = try LayerGolden.load(try TestData.fixture(golden))
        let model = try ModelDescription(contentsOf: try TestData.fixture("\(name).cfg").path)
        let bytes = SyntheticWeights.bytes(for: model, seed: 1)
        XCTAssertEqual(String(SyntheticWeights.fnv1a64(bytes), radix: 16).leftPadded(to: 16), layers.syntheticWeights?.fnv1a64)
        let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
        return (model, weights, layers)
    }

    /// Every layer, the `[region]`'s per-group softmax included, within 1e-4·(1 + std).
    func testTreeRegionEveryLayer() throws {
        let (model, weights, golden) = try load("zoo6-tree", golden: "zoo6-tree-64-synthetic.json")
        guard case .region(let region) = model.layers.last?.kind else { return XCTFail("no [region]") }
        let tree = try XCTUnwrap(region.head.tree)
        XCTAssertEqual([tree.count, tree.groupSizes.count], [14, 7])
        try assertMatchesGolden(Network(model: model, weights: weights), golden, tolerance: 1e-4)
    }

    /// darknet's `detector test` path: the photo letterboxed (a pjreddie cfg), one class per
    /// box from `hierarchy_top_prediction` with `-hier` 0.5 (which stops at the first level on
    /// these weights) and 0.05 (which reaches the leaves), its probability the objectness;
    /// do_nms_sort 0.45 across the 14 classes. One image and a batch of two.
    func testTreeRegionDetectionsMatchDarknet() throws {
        let (model, weights, _) = try load("zoo6-tree", golden: "zoo6-tree-64-synthetic.json")
        let image = try Image(contentsOf: try TestData.path("data/dog.jpg"))
        var classes = Set<Int>()
        for hier in ["0.5", "0.05"] {
            let golden = try JSONDecoder().decode(DetectionGolden.self, from: Data(contentsOf: try TestData.fixture(
                "zoo6-tree-64-synthetic-dog-hier\(hier).json")))
            XCTAssertGreaterThan(golden.detections.count, 20, hier)
            classes.formUnion(golden.detections.map(\.classId))
            let options = DetectorOptions(threshold: 0.55, hierarchyThreshold: Float(hier)!)
            let detector = try Detector(model: model, weights: weights, options: options)
            let found = try detector.detect(in: image)
            assertMatchesDarknet(found, golden, image: image)
            XCTAssertEqual(try detector.detect(in: [image, image])[1], found, "hier \(hier) in a batch")
        }
        XCTAssertTrue(classes.isSuperset(of: [0, 2, 4, 6, 8]), "root, inner classes and leaves: \(classes.sorted())")
    }

    /// Every layer of the classifier, and darknet's `classifier predict` top 5: the leaves'
    /// path probabilities (`hierarchy_predictions` with `only_leaves = 1`).
    func testTreeClassifierMatchesDarknet() throws {
        let (model, weights, golden) = try load("zoo6-tree-classifier", golden: "zoo6-tree-classifier-32-synthetic.json")
        try assertMatchesGolden(Network(model: model, weights: weights), golden, tolerance: 1e-4)
        let top = try JSONDecoder().decode(ClassifierGoldenTests.TopGolden.self,
                                           from: Data(contentsOf: try TestData.fixture("zoo6-tree-classifier-32-classify.json")))
        let classifier = try Classifier(model: model, weights: weights)
        let tree = try XCTUnwrap(model.hierarchy)
        let image = try Image(contentsOf: try TestData.path("data/dog.jpg"))
        let result = try classifier.classify(image, top: 5)
        XCTAssertEqual(result.map(\.index), top.top.map { Int($0[0]) })
        XCTAssertTrue(result.allSatisfy { tree.leaves[$0.index] }, "only leaves score")
        for (ours, theirs) in zip(result, top.top) { XCTAssertEqual(Double(ours.confidence), theirs[1], accuracy: 1e-5) }
    }

    /// The tree file is found as darknet finds it (from the working directory), else beside the
    /// cfg or in its parent folder (`cfg/x.cfg` naming `data/x.tree`); a missing, malformed or
    /// mis-sized tree is an error naming the cfg line, the file and what is wrong.
    func testTreeFileIsFoundAndCheckedWithItsLines() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tree-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        for sub in ["cfg", "data"] {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        try "a -1\nb -1\nc 0\n".write(to: folder.appendingPathComponent("data/three.tree"), atomically: true, encoding: .utf8)
        try "a -1\nb 5\n".write(to: folder.appendingPathComponent("data/bad.tree"), atomically: true, encoding: .utf8)
        func cfg(_ tree: String, classes: Int = 3) throws -> String {
            let path = folder.appendingPathComponent("cfg/m.cfg").path
            try """
                [net]
                width=1
                height=1
                channels=\(2 * (5 + classes))
                [region]
                classes=\(classes)
                num=2
                tree=\(tree)
                map=data/coco9k.map
                """.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        let model = try ModelDescription(contentsOf: try cfg("data/three.tree"))
        guard case .region(let region) = model.layers[0].kind else { return XCTFail("no [region]") }
        XCTAssertEqual(region.head.tree?.names, ["a", "b", "c"])
        XCTAssertTrue(model.warnings.isEmpty, "map= is known and not read: \(model.warnings)")
        let beside = try cfg("../data/three.tree")
        XCTAssertNotNil(try ModelDescription(contentsOf: beside).layers.first)

        func error(_ tree: String, classes: Int = 3) throws -> CfgError? {
            do { _ = try ModelDescription(contentsOf: try cfg(tree, classes: classes)); return nil } catch { return error as? CfgError }
        }
        let missing = try XCTUnwrap(try error("data/none.tree"))
        XCTAssertEqual(missing.location?.line, 8)
        XCTAssertTrue(missing.description.contains("data/none.tree: not found (tried data/none.tree, "), missing.description)
        let bad = try XCTUnwrap(try error("data/bad.tree"))
        XCTAssertTrue(bad.description.hasSuffix("data/bad.tree:2: the parent 5 is not -1 or the number of an earlier line (0..<1)"),
                      bad.description)
        let count = try XCTUnwrap(try error("data/three.tree", classes: 4))
        guard case .invalidValue(let location, _, let expected) = count else { return XCTFail("\(count)") }
        XCTAssertEqual(location.key, "tree")
        XCTAssertEqual(expected, "a tree of 4 classes (one line each), found 3")
    }
}
