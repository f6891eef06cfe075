import Foundation
import TestSupport
import XCTest

/// `detect --format coco` read by pycocotools' `COCO.loadRes` (the reference reader), against
/// a small ground-truth file written here. pycocotools lives in <package>/.venv-coco, made by
/// tools/install-deps (skipped without it).
final class COCOReportTests: XCTestCase {
    func testCOCOResultsLoadInPycocotools() throws {
        let python = try TestTools.requireCocoPython()
        let folder = try CLI.temporaryFolder(self)
        // COCO-style name (id from its digits) and a name without digits (id from --image-ids).
        try FileManager.default.copyItem(atPath: try TestData.path("data/dog.jpg"), toPath: folder.appendingPathComponent("000000000042.jpg").path)
        try FileManager.default.copyItem(atPath: try TestData.path("data/horses.jpg"), toPath: folder.appendingPathComponent("horses.jpg").path)
        let ids = folder.appendingPathComponent("ids.txt")
        try "# file name, COCO id\nhorses.jpg 7\n".write(to: ids, atomically: true, encoding: .utf8)
        let result = try CLI.run(["detect", try TestData.path("cfg/yolov3-tiny.cfg"), try TestData.path("yolov3-tiny.weights"),
                                  folder.path, "--format", "coco", "--image-ids", ids.path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let results = folder.appendingPathComponent("results.json")
        try result.stdout.write(to: results, atomically: true, encoding: .utf8)

        // Ground truth: COCO's own ids and names for the classes seen (from the COCO 2017
        // annotations' category list), one box per image.
        let categories = [(1, "person"), (2, "bicycle"), (3, "car"), (8, "truck"), (18, "dog"), (19, "horse"), (21, "cow")]
        let truth: [String: Any] = [
            "images": [["id": 42, "file_name": "000000000042.jpg", "width": 768, "height": 576],
                       ["id": 7, "file_name": "horses.jpg", "width": 773, "height": 512]],
            "annotations": [["id": 1, "image_id": 42, "category_id": 18, "bbox": [129, 186, 240, 331], "area": 79440, "iscrowd": 0],
                            ["id": 2, "image_id": 7, "category_id": 19, "bbox": [0, 190, 200, 180], "area": 36000, "iscrowd": 0]],
            "categories": categories.map { ["id": $0.0, "name": $0.1, "supercategory": "x"] },
        ]
        let truthURL = folder.appendingPathComponent("truth.json")
        try JSONSerialization.data(withJSONObject: truth).write(to: truthURL)
        let script = """
        import json, sys
        from pycocotools.coco import COCO
        gt = COCO(sys.argv[1])
        dt = gt.loadRes(sys.argv[2])
        for a in sorted(dt.anns.values(), key=lambda a: (a['image_id'], a['category_id'], a['bbox'][0])):
            print(a['image_id'], gt.cats[a['category_id']]['name'], round(a['bbox'][2] * a['bbox'][3]) == round(a['area']))
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, truthURL.path, results.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "loadRes failed")
        let lines = output.split(separator: "\n").filter { $0.first?.isNumber == true }  // not pycocotools' chatter
        // darknet's classes on these photos (the same as `detect` prints), named through COCO's ids:
        // a wrong 80→91 mapping would name them differently (dog is class 16 but COCO id 18).
        let seen = lines.map { $0.split(separator: " ").dropLast().joined(separator: " ") }
        XCTAssertEqual(seen.filter { $0.hasPrefix("42 ") }.sorted(), ["42 bicycle", "42 car", "42 car", "42 dog", "42 truck"], output)
        XCTAssertTrue(seen.contains("7 horse"), output)
        XCTAssertTrue(lines.allSatisfy { $0.hasSuffix("True") }, "bbox is [x, y, w, h]: area = w·h\n\(output)")
    }
}
