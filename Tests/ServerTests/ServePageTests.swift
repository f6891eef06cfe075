import Foundation
import TestSupport
import XCTest

/// `GET /` in headless Chromium (Debian's `chromium`, `Scripts/page_check.py`): the page
/// lists the models, a photo dropped on it is sent, and the boxes the server answered are
/// listed and drawn on the canvas over the photo.
final class ServePageTests: XCTestCase {
    func testAPhotoDroppedOnThePageHasItsBoxesDrawn() throws {
        guard let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first(where: FileManager.default.isExecutableFile) else {
            throw Skip.because("chromium is missing: the page test needs Debian's chromium (apt-get install chromium)")
        }
        _ = chromium
        let cfg = try TestData.cfg("yolov3-tiny"), weights = try TestData.path("yolov3-tiny.weights")
        let names = try TestData.path("data/coco.names"), dog = try TestData.path("data/dog.jpg")
        let server = try ServeProcess(["--model", "yolo=\(cfg),\(weights),\(names)"], testCase: self)
        try server.waitReady()
        let page = try Curl.get(server.base + "/")
        XCTAssertEqual(page.status, 200)
        XCTAssertFalse(page.text.contains("src=\"http"), "the page loads nothing from elsewhere")
        let answer = try Curl.run(["-F", "image=@" + dog, server.base + "/v1/models/yolo/detect"])
        let detections = try XCTUnwrap(answer.json["detections"] as? [[String: Any]])
        let expected = detections.map { detection -> [Int] in
            let box = detection["box"] as? [String: Int] ?? [:]
            return [box["left"] ?? -1, box["top"] ?? -1, box["right"] ?? -1, box["bottom"] ?? -1]
        }
        let shot = try TestData.temporaryFolder(self).appendingPathComponent("page.png").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [TestData.packageRoot.appendingPathComponent("Tests/ServerTests/Scripts/page_check.py").path,
                             server.base + "/", dog, shot]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, text)
        let line = text.split(separator: "\n").last.map(String.init) ?? ""
        let result = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], text)
        XCTAssertEqual(result["status"] as? String, "dog.jpg: \(expected.count) detections")
        XCTAssertEqual(result["width"] as? Int, 768)
        XCTAssertEqual(result["boxes"] as? [[Int]], expected)
        XCTAssertEqual(result["drawn"] as? [Bool], [Bool](repeating: true, count: expected.count), "each box is drawn on the canvas")
        XCTAssertGreaterThan(expected.count, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: shot))
    }
}
