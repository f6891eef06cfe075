import Darknet
import Imaging
import XCTest
import YOLO

/// The README's library example, compiled and run (keep the two in sync).
final class ReadmeExampleTests: XCTestCase {
    func testReadmeExample() throws {
        // The example uses paths relative to the package root: run it in a folder whose
        // `weights` links to the fetched data, wherever DARKNET_SWIFT_DATA points.
        _ = try TestData.path("yolov3-tiny.weights")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("weights"), withDestinationURL: TestData.root)
        let previous = FileManager.default.currentDirectoryPath
        _ = FileManager.default.changeCurrentDirectoryPath(folder.path)
        addTeardownBlock {
            _ = FileManager.default.changeCurrentDirectoryPath(previous)
            try? FileManager.default.removeItem(at: folder)
        }
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        // --- README example starts ---
        let detector = try Detector(cfg: "weights/cfg/yolov3-tiny.cfg",
                                    weights: "weights/yolov3-tiny.weights",
                                    options: DetectorOptions(threshold: 0.5, nmsThreshold: 0.45))
        let names = try ClassNames.load(contentsOf: "weights/data/coco.names")
        let image = try Image(contentsOf: "weights/data/dog.jpg")
        for detection in try detector.detect(in: image) {
            let box = detection.pixelBox(imageWidth: image.width, imageHeight: image.height)
            print(names[detection.classId], detection.confidence, box.left, box.top, box.right, box.bottom)
        }
        // --- README example ends ---

        XCTAssertEqual(printed.count, 5)
        XCTAssertTrue(printed.contains { $0.hasPrefix("dog 0.56") }, "\(printed)")
    }
}
