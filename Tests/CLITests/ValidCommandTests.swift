import Foundation
import TestSupport
import XCTest

/// Issue #51 item 4: `valid` and `detector valid` write what his `validate_detector` writes
/// (Fixtures/darknet/valid-*), and say their threshold.
final class ValidCommandTests: XCTestCase {
    /// His -out lines, masked.
    private func layout(_ text: String) -> Set<String> {
        Set(DarknetOracle.masked(text).split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
    }

    /// eval=coco: his `print_cocos` array (entries `{"image_id":N, "category_id":N, "bbox":[…], "score":N}`,
    /// `[` and `]` alone on their lines), run at his AlexeyAB settings (0.001, NMS 0.6, resized);
    /// each of his entries at 0.05 or more has one of ours with the same category and image,
    /// the box within 3 pixels and the score within 0.01. Image ids: his atoi of the name is 0.
    func testCOCOResultsAreHis() throws {
        let folder = try DarknetOracle.labelledSet(self, labels: false, extra: "eval=coco\n")
        try DarknetOracle.photos.map { "\($0).jpg 0\n" }.joined().write(to: folder.appendingPathComponent("ids.txt"), atomically: true, encoding: .utf8)
        let result = try DarknetOracle.run(["detector", "valid", "set.data"] + CLI.tinyDetector()
                                           + ["--stretch", "--thresh", "0.001", "--nms", "0.6", "--image-ids", "ids.txt"], in: folder)
        XCTAssertEqual(result.status, 0, result.stderr)
        let ours = try String(contentsOf: folder.appendingPathComponent("results/coco_results.json"), encoding: .utf8)
        let his = try DarknetOracle.text("valid-coco.json")
        XCTAssertTrue(ours.hasPrefix("[\n{\"image_id\":0, "), String(ours.prefix(80)))
        XCTAssertTrue(ours.hasSuffix("}\n]\n"))
        XCTAssertTrue(layout(ours).isSubset(of: layout(his).union([""])), "\(layout(ours).subtracting(layout(his)))")
        let entries = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(ours.utf8)) as? [[String: Any]])
        let wanted = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(his.replacingOccurrences(of: "},\n]", with: "}\n]").utf8)) as? [[String: Any]])
            .filter { ($0["score"] as! Double) >= 0.05 }
        XCTAssertEqual(wanted.count, 57)
        for entry in wanted {
            let box = entry["bbox"] as! [Double]
            XCTAssertTrue(entries.contains { mine in
                mine["category_id"] as? Int == entry["category_id"] as? Int
                    && abs((mine["score"] as! Double) - (entry["score"] as! Double)) < 0.01
                    && zip(mine["bbox"] as! [Double], box).allSatisfy { abs($0 - $1) < 3 }
            }, "\(entry)")
        }
        XCTAssertTrue(result.stderr.contains("threshold 0.001 (--thresh)"), result.stderr)
    }

    /// No eval=: VOC's per-class files, his `print_detector_detections` lines (`ID prob xmin
    /// ymin xmax ymax`, pixels from 1), NAMEclass.txt in results=; existing files kept
    /// without --force.
    func testVOCFilesAreHis() throws {
        let folder = try DarknetOracle.labelledSet(self, photos: ["dog"], labels: false, extra: "results=out\n")
        let line = ["valid", "set.data"] + (try CLI.tinyDetector()) + ["--stretch", "--thresh", "0.001", "--nms", "0.6", "--out-name", "det_"]
        let result = try DarknetOracle.run(line, in: folder)
        XCTAssertEqual(result.status, 0, result.stderr)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("out").path)
        XCTAssertEqual(files.count, 80)
        XCTAssertTrue(files.contains("det_traffic light.txt"))
        let ours = try String(contentsOf: folder.appendingPathComponent("out/det_dog.txt"), encoding: .utf8)
        let his = try DarknetOracle.text("valid-comp4-dog.txt").split(separator: "\n").filter { $0.hasPrefix("dog ") }
        XCTAssertEqual(Set(DarknetOracle.masked(ours).split(separator: "\n")), ["dog N N N N N"])
        let mine = ours.split(separator: "\n").map { DarknetOracle.numbers(String($0)) }
        for line in his {
            let numbers = DarknetOracle.numbers(String(line))
            guard numbers[0] >= 0.05 else { continue }
            XCTAssertTrue(mine.contains { zip($0, numbers).allSatisfy { abs($0 - $1) < 3 } && abs($0[0] - numbers[0]) < 0.01 }, "\(line)")
        }
        let again = try DarknetOracle.run(line, in: folder)
        XCTAssertEqual(again.status, 2)
        XCTAssertTrue(again.stderr.contains("already exists (use --force to overwrite it)"), again.stderr)
        XCTAssertEqual(try DarknetOracle.run(line + ["--force"], in: folder).status, 0)
    }

    /// Without --thresh and --nms, a cfg's own darknet's settings: AlexeyAB's 0.001 for his
    /// cfgs, pjreddie's 0.005 for hers; an eval= darknet-swift does not write is refused by line.
    func testDefaultsAreTheCfgsDarknetsAndEvalIsChecked() throws {
        let folder = try DarknetOracle.labelledSet(self, photos: ["eagle"], labels: false, extra: "eval=coco\n")
        try "eagle.jpg 1\n".write(to: folder.appendingPathComponent("ids.txt"), atomically: true, encoding: .utf8)
        let pjreddie = try DarknetOracle.run(["valid", "set.data"] + CLI.tinyDetector() + ["--image-ids", "ids.txt"], in: folder)
        XCTAssertEqual(pjreddie.status, 0, pjreddie.stderr)
        XCTAssertTrue(pjreddie.stderr.contains("threshold 0.005 (a pjreddie cfg: darknet detector valid's threshold)"), pjreddie.stderr)
        try "classes=80\nnames=\(try TestData.path("data/coco.names"))\nvalid=valid.txt\neval=kitti\n"
            .write(to: folder.appendingPathComponent("kitti.data"), atomically: true, encoding: .utf8)
        let kitti = try DarknetOracle.run(["valid", "kitti.data"] + CLI.tinyDetector(), in: folder)
        XCTAssertEqual(kitti.status, 2)
        XCTAssertTrue(kitti.stderr.contains("kitti.data:4 'eval': eval=kitti is not supported"), kitti.stderr)
    }
}
