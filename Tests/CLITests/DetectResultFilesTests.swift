import Foundation
import Imaging
import TestSupport
import XCTest

/// `detect --save-labels` and `--crops` through the real binary (issue #34 item 4).
final class DetectResultFilesTests: XCTestCase {
    func model() throws -> [String] {
        [try TestData.path("cfg/yolov3-tiny.cfg"), try TestData.path("yolov3-tiny.weights")]
    }

    /// A flat grey PNG: nothing to detect.
    func blank(in folder: URL) throws -> String {
        let path = folder.appendingPathComponent("blank.png").path
        try Image(width: 64, height: 48, channels: 3, fill: 0.5).write(to: path)
        return path
    }

    /// AlexeyAB's `-save_labels` lines: one per box (car 52% and truck 55% share a box: the
    /// truck, class 7, is written), `%d %2.4f %2.4f %2.4f %2.4f`, normalised centre and size;
    /// an image without detections gets an empty file.
    func testSaveLabelsWritesAlexeyABsLinesAndEmptyFiles() throws {
        let folder = try CLI.temporaryFolder(self)
        let labels = folder.appendingPathComponent("labels")
        let dog = try TestData.path("data/dog.jpg")
        let result = try CLI.run(["detect"] + model() + [dog, try blank(in: folder), "--save-labels", labels.path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try String(contentsOf: labels.appendingPathComponent("dog.txt"), encoding: .utf8),
                       "16 0.3245 0.6113 0.3128 0.5744\n7 0.7518 0.2189 0.1149 0.1088\n"
                       + "2 0.7449 0.2091 0.2790 0.1712\n1 0.5091 0.5218 0.4813 0.5190\n")
        XCTAssertEqual(try Data(contentsOf: labels.appendingPathComponent("blank.txt")).count, 0)

        // The lines are the JSON output's normalised boxes, each box once with its best class.
        let json = try CLI.run(["detect"] + model() + [dog, "--format", "jsonl"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let detections = try XCTUnwrap(object["detections"] as? [[String: Any]])
        XCTAssertEqual(detections.count, 5)
        let first = try XCTUnwrap(detections[0]["normalized"] as? [String: Double])
        XCTAssertEqual(String(format: "%d %2.4f %2.4f %2.4f %2.4f", 16, first["x"]!, first["y"]!, first["width"]!, first["height"]!),
                       "16 0.3245 0.6113 0.3128 0.5744")

        // An existing label file is the user's: kept without --force (that image fails), replaced with it.
        try "0 0.5 0.5 0.1 0.1\n".write(to: labels.appendingPathComponent("dog.txt"), atomically: true, encoding: .utf8)
        let again = try CLI.run(["detect"] + model() + [dog, "--save-labels", labels.path, "--quiet"])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stdout.hasPrefix("\(dog): Predicted in "), "the detections computed are written all the same: \(again.stdout)")
        XCTAssertTrue(again.stderr.contains("dog.txt already exists (use --force to overwrite it)"), again.stderr)
        XCTAssertEqual(try String(contentsOf: labels.appendingPathComponent("dog.txt"), encoding: .utf8), "0 0.5 0.5 0.1 0.1\n")
        let forced = try CLI.run(["detect"] + model() + [dog, "--save-labels", labels.path, "--quiet", "--force"])
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertTrue(try String(contentsOf: labels.appendingPathComponent("dog.txt"), encoding: .utf8).hasPrefix("16 0.3245"))
    }

    /// Labels may go beside the images (where darknet's training reads them), keeping the
    /// layout of sub-folders; no temporary file is left behind.
    func testLabelsBesideTheImagesOfAFolder() throws {
        let folder = try CLI.temporaryFolder(self)
        let sub = folder.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try TestData.path("data/dog.jpg"), toPath: sub.appendingPathComponent("dog.jpg").path)
        _ = try blank(in: folder)
        let result = try CLI.run(["detect"] + model() + [folder.path, "--recursive", "--save-labels", folder.path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try FileManager.default.subpathsOfDirectory(atPath: folder.path).sorted(),
                       ["blank.png", "blank.txt", "sub", "sub/dog.jpg", "sub/dog.txt"])
    }

    /// One file per detection, `NAME-CLASS-N.EXT` with N its place in the output; JPEG in,
    /// JPEG out; PNG in, PNG out, the crop's pixels the photo's inside darknet's pixel box.
    func testCropsAreNamedByImageClassAndIndexInTheInputsFormat() throws {
        let folder = try CLI.temporaryFolder(self)
        let crops = folder.appendingPathComponent("crops")
        let dog = try TestData.path("data/dog.jpg")
        let png = folder.appendingPathComponent("dog-copy.png").path
        let photo = try Image(contentsOf: dog)
        try photo.write(to: png)
        let result = try CLI.run(["detect"] + model() + [dog, png, "--crops", crops.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let names = try FileManager.default.contentsOfDirectory(atPath: crops.path).sorted()
        XCTAssertEqual(names, ["dog-bicycle-4.jpg", "dog-car-1.jpg", "dog-car-3.jpg", "dog-copy-bicycle-4.png", "dog-copy-car-1.png",
                               "dog-copy-car-3.png", "dog-copy-dog-0.png", "dog-copy-truck-2.png", "dog-dog-0.jpg", "dog-truck-2.jpg"])
        // dog: 56%  left=129 top=186 right=369 bottom=517 (edges inclusive).
        XCTAssertTrue(result.stdout.contains("dog: 56%\tleft=129 top=186 right=369 bottom=517"), result.stdout)
        let jpeg = try Image(contentsOf: crops.appendingPathComponent("dog-dog-0.jpg").path)
        XCTAssertEqual([jpeg.width, jpeg.height], [241, 332])
        XCTAssertEqual(try Data(contentsOf: crops.appendingPathComponent("dog-dog-0.jpg")).prefix(3), Data([0xFF, 0xD8, 0xFF]))
        let lossless = try Image(contentsOf: crops.appendingPathComponent("dog-copy-dog-0.png").path)
        XCTAssertEqual(lossless, photo.cropped(x: 129, y: 186, width: 241, height: 332))

        // Crops are images: a folder of inputs is refused as their folder, unless --force.
        let inFolder = try CLI.run(["detect"] + model() + [folder.path, "--crops", folder.path])
        XCTAssertEqual(inFolder.status, 2)
        XCTAssertTrue(inFolder.stderr.contains("is an input folder (use --force to write there anyway)"), inFolder.stderr)
        // Existing crops are kept without --force.
        let again = try CLI.run(["detect"] + model() + [dog, "--crops", crops.path, "--quiet"])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("dog-dog-0.jpg already exists"), again.stderr)
    }

    func testBadTilesAreOneLineUsageErrors() throws {
        for value in ["0x2", "2x", "3", "2x65", "two", "1x2x3"] {
            let result = try CLI.run(["detect"] + model() + [try TestData.path("data/dog.jpg"), "--tiles", value])
            XCTAssertEqual(result.status, 2, value)
            XCTAssertEqual(result.stderr.split(separator: "\n").first.map(String.init),
                           "Error: --tiles must be COLSxROWS (each 1...64, e.g. 2x2) or auto, got \(value)")
        }
    }
}
