import Foundation
import TestSupport
import XCTest

/// Issue #51 item 3: `map` and `detector map` through the binary, against AlexeyAB's lines
/// (Fixtures/darknet/map-points*.txt) and against the labels `detect --save-labels` writes.
final class MapCommandTests: XCTestCase {
    /// His `detector map` on his own -save_labels labels, fitted as his binary fits them
    /// (stretch: his map resizes unless [net] letter_box), at each -points: the same lines,
    /// every class's AP, TP and FP the same; the counts and IoU within what decoding changes.
    func testDetectorMapPrintsHisLines() throws {
        let folder = try DarknetOracle.labelledSet(self)
        for points in ["0", "11", "101"] {
            let result = try DarknetOracle.run(["detector", "map", "set.data"] + CLI.tinyDetector()
                                               + ["-points", points, "-dont_show", "--stretch", "--quiet"], in: folder)
            XCTAssertEqual(result.status, 0, result.stderr)
            let expected = try DarknetOracle.text("map-points\(points).txt")
            let ours = result.stdout.components(separatedBy: " mean average precision (mAP@0.50:0.95)")
            XCTAssertEqual(ours.count, 2, result.stdout)
            XCTAssertEqual(DarknetOracle.masked(ours[0]), DarknetOracle.masked(expected))
            let classLines = { (text: String) in text.split(separator: "\n").filter { $0.hasPrefix("class_id") } }
            XCTAssertEqual(classLines(ours[0]), classLines(expected), "every class's AP, TP and FP")
            XCTAssertTrue(ours[0].hasSuffix(" mean average precision (mAP@0.50) = 0.137500, or 13.75 % \n"), ours[0])
            let (mine, his) = (DarknetOracle.numbers(ours[0]), DarknetOracle.numbers(expected))
            XCTAssertEqual(mine[0], his[0], accuracy: 3, "detections_count")
            for (a, b) in zip(mine.suffix(16), his.suffix(16)) { XCTAssertEqual(a, b, accuracy: 0.5) }
        }
    }

    /// Reasoned out: labels written by `detect --save-labels` at a threshold are, at that
    /// threshold, every box's best class. map ranks the same boxes (0.005 keeps them, and NMS
    /// lets a low box suppress no higher one), so each label is found (IoU ≈ 1: the labels are
    /// rounded to 4 decimals): TP = the label count, FN = 0, recall 1. A box's other classes
    /// above the threshold are false positives; a class's AP is 100 % unless one of those
    /// outranks a true box of the class, which cannot happen to a class no box has as its
    /// other class.
    func testLabelsSaveLabelsWritesGiveEveryLabelBack() throws {
        let folder = try DarknetOracle.labelledSet(self, photos: ["dog", "horses", "person"], labels: false)
        let labelled = try DarknetOracle.run(["detect"] + CLI.tinyDetector() + ["set", "--save-labels", "set", "--thresh", "0.3",
                                                                                "--format", "jsonl", "--quiet"], in: folder)
        XCTAssertEqual(labelled.status, 0, labelled.stderr)
        var labels = 0
        var secondary = Set<Int>(), primary = Set<Int>()
        for line in labelled.stdout.split(separator: "\n") {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            var boxes: [String: [(Int, Double)]] = [:]
            for detection in object["detections"] as! [[String: Any]] {
                let box = detection["normalized"] as! [String: Double]
                boxes["\(box["x"]!) \(box["y"]!) \(box["width"]!) \(box["height"]!)", default: []].append((detection["classId"] as! Int, detection["confidence"] as! Double))
            }
            for entries in boxes.values {
                let best = entries.max { $0.1 < $1.1 }!.0
                primary.insert(best)
                for entry in entries where entry.0 != best { secondary.insert(entry.0) }
                labels += 1
            }
        }
        let result = try DarknetOracle.run(["map", "set.data"] + CLI.tinyDetector() + ["--thresh", "0.3", "--format", "json", "--quiet"],
                                           in: folder)
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["objects"] as? Int, labels)
        XCTAssertEqual(report["truePositives"] as? Int, labels)
        XCTAssertEqual(report["falseNegatives"] as? Int, 0)
        XCTAssertEqual(report["recall"] as? Double, 1)
        for row in report["classes"] as! [[String: Any]] {
            let classId = row["classId"] as! Int
            if primary.contains(classId) && !secondary.contains(classId) {
                XCTAssertEqual(row["averagePrecision"] as? Double, 1, "\(row)")
            }
            if !primary.contains(classId) { XCTAssertEqual(row["averagePrecision"] as? Double, 0, "\(row)") }
        }
        XCTAssertEqual(report["images"] as? Int, 3)
        XCTAssertEqual((report["failed"] as? [Any])?.count, 0)
    }

    /// Images that cannot be used are named and counted, never dropped without a word: a
    /// malformed label file (its file and line), an unreadable image; a missing label file is
    /// his warning and the image counts with no objects. Exit status 1.
    func testFailuresAreNamedAndCounted() throws {
        let folder = try DarknetOracle.labelledSet(self, photos: ["dog", "eagle", "kite"])
        try "16 0.3 0.6 0.3\n".write(to: folder.appendingPathComponent("set/eagle.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(at: folder.appendingPathComponent("set/kite.txt"))
        try "set/dog.jpg\nset/eagle.jpg\nset/kite.jpg\nset/missing.jpg\n".write(to: folder.appendingPathComponent("valid.txt"),
                                                                              atomically: true, encoding: .utf8)
        let result = try DarknetOracle.run(["map", "set.data"] + CLI.tinyDetector() + ["--format", "json"], in: folder)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("set/eagle.txt:1: expected 'class x_center y_center width height', found '16 0.3 0.6 0.3'"),
                      result.stderr)
        XCTAssertTrue(result.stderr.contains("set/missing.jpg: no such file"), result.stderr)
        XCTAssertTrue(result.stderr.contains("warning: can't open label file set/kite.txt"), result.stderr)
        XCTAssertTrue(result.stderr.contains("4 images: 2 evaluated, 2 failed, 1 without a label file"), result.stderr)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((report["failed"] as? [[String: String]])?.map { $0["path"] }, ["set/eagle.jpg", "set/missing.jpg"])
        XCTAssertEqual(report["missingLabels"] as? [String], ["set/kite.txt"])
    }

    /// `difficult=` lists, for each image of valid=, an image whose label file holds its
    /// difficult objects: a detection of one that matches no true object leaves the ranking
    /// (his rule); a list of another length is an error naming both counts.
    func testDifficultObjectsLeaveTheRanking() throws {
        let folder = try DarknetOracle.labelledSet(self, photos: ["dog"], labels: false, extra: "difficult=difficult.txt\n")
        try Data().write(to: folder.appendingPathComponent("set/dog.txt"))
        let hard = folder.appendingPathComponent("hard")
        try FileManager.default.createDirectory(at: hard, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: DarknetOracle.folder.appendingPathComponent("set-labels/dog.txt"),
                                         to: hard.appendingPathComponent("dog.txt"))
        try "hard/dog.jpg\n".write(to: folder.appendingPathComponent("difficult.txt"), atomically: true, encoding: .utf8)
        let count = { (data: String) throws -> Int in
            let result = try DarknetOracle.run(["map", data] + CLI.tinyDetector() + ["--format", "json", "--quiet"], in: folder)
            XCTAssertEqual(result.status, 0, result.stderr)
            let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            XCTAssertEqual(report["objects"] as? Int, 0)
            return try XCTUnwrap(report["detections"] as? Int)
        }
        try "classes=80\nnames=\(try TestData.path("data/coco.names"))\nvalid=valid.txt\n".write(
            to: folder.appendingPathComponent("plain.data"), atomically: true, encoding: .utf8)
        let all = try count("plain.data"), kept = try count("set.data")
        XCTAssertLessThan(kept, all - 3, "the four dog, truck, car and bicycle boxes (and their near copies) leave the ranking")
        try "hard/dog.jpg\nhard/dog.jpg\n".write(to: folder.appendingPathComponent("difficult.txt"), atomically: true, encoding: .utf8)
        let mismatch = try DarknetOracle.run(["map", "set.data"] + CLI.tinyDetector(), in: folder)
        XCTAssertEqual(mismatch.status, 2)
        XCTAssertTrue(mismatch.stderr.contains("difficult.txt: 2 paths, but the image list has 1"), mismatch.stderr)
    }

    /// Every figure of the text is in the JSON; --valid and image folders replace valid=;
    /// --points and --iou-thresh are checked; a names file that does not fit the model stops
    /// map, as his does.
    func testOptionsAndJSON() throws {
        let folder = try DarknetOracle.labelledSet(self, photos: ["dog", "person"])
        let text = try DarknetOracle.run(["map", "set.data"] + CLI.tinyDetector() + ["set", "--iou-thresh", "0.75", "--points", "11", "--quiet"],
                                         in: folder)
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains(" IoU threshold = 75 %, used 11 Recall-points \n"), text.stdout)
        let json = try DarknetOracle.run(["map", "set.data"] + CLI.tinyDetector() + ["--valid", "valid.txt", "--iou-thresh", "0.75",
                                                                                    "--points", "11", "--format", "json", "--quiet"], in: folder)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let map = try XCTUnwrap(report["meanAveragePrecision"] as? Double)
        XCTAssertTrue(text.stdout.contains(String(format: "(mAP@0.75) = %f, or %2.2f %%", map, map * 100)), text.stdout)
        let coco = try XCTUnwrap(report["meanAveragePrecision50To95"] as? Double)
        XCTAssertTrue(text.stdout.contains(String(format: "(mAP@0.50:0.95) = %f", coco)), text.stdout)
        XCTAssertEqual((report["classes"] as? [Any])?.count, 80)
        for key in ["precision", "recall", "f1", "averageIoU", "truePositives", "falsePositives", "falseNegatives", "detections", "fitting", "nms"] {
            XCTAssertNotNil(report[key], key)
        }
        // --candidates: fewer boxes ranked above a higher floor, the figures above --thresh kept; never above --thresh.
        let floor = try DarknetOracle.run(["map", "set.data"] + CLI.tinyDetector() + ["--valid", "valid.txt", "--iou-thresh", "0.75",
                                                                                     "--points", "11", "--format", "json", "--quiet",
                                                                                     "--candidates", "0.2"], in: folder)
        XCTAssertEqual(floor.status, 0, floor.stderr)
        let raised = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(floor.stdout.utf8)) as? [String: Any])
        XCTAssertLessThan(try XCTUnwrap(raised["detections"] as? Int), try XCTUnwrap(report["detections"] as? Int))
        for key in ["truePositives", "falsePositives", "falseNegatives"] {
            XCTAssertEqual(raised[key] as? Int, report[key] as? Int, key)
        }
        let above = try DarknetOracle.run(["map", "set.data"] + CLI.tinyDetector() + ["--candidates", "0.3"], in: folder)
        XCTAssertEqual(above.status, 2)
        XCTAssertTrue(above.stderr.contains("--candidates must be in 0...1 and not above --thresh (0.25), got 0.3"), above.stderr)
        let bad = try DarknetOracle.run(["map", "set.data"] + CLI.tinyDetector() + ["--points", "1"], in: folder)
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("--points must be 0 (area under the curve) or 2...10000, got 1"), bad.stderr)
        try "a\nb\n".write(to: folder.appendingPathComponent("two.names"), atomically: true, encoding: .utf8)
        try "classes=80\nnames=two.names\nvalid=valid.txt\n".write(to: folder.appendingPathComponent("two.data"), atomically: true, encoding: .utf8)
        let names = try DarknetOracle.run(["detector", "map", "two.data"] + CLI.tinyDetector(), in: folder)
        XCTAssertEqual(names.status, 2)
        XCTAssertTrue(names.stderr.contains("two.names has 2 names but the model has 80 classes"), names.stderr)
    }
}
