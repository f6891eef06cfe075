import Foundation
import TestSupport
import XCTest

/// Dynamic batching through the real binary: requests that arrive together run in one
/// forward pass, and each gets the answer it gets alone (`detect`'s for its file).
final class ServeBatchingTests: XCTestCase {
    func testBatchedAnswersEqualTheirAloneAnswers() throws {
        let models = try ServeModels(self)
        // A long window, so the four requests below surely meet in one batch.
        let server = try ServeProcess(models.arguments + ["--max-batch", "4", "--batch-window-ms", "3000"], testCase: self)
        try server.waitReady()
        let queries = ["?thresh=0.1", "?thresh=0.3", "?thresh=0.2&nms=0.2", "?thresh=0.1&classes=0"]
        let photos = try (0..<4).map { try models.photo("p\($0).\($0 % 2 == 0 ? "png" : "jpg")", width: 60 + 13 * $0, height: 90 - 7 * $0, seed: UInt64(20 + $0)) }
        let options: [[String]] = [["--thresh", "0.1"], ["--thresh", "0.3"], ["--thresh", "0.2", "--nms", "0.2"], ["--thresh", "0.1", "--classes", "0"]]
        let alone = try (0..<4).map { ServeDetectTests.comparable(try ServeDetectTests.cliJSON(models, photos[$0], options[$0])) }
        let answers = Curl.concurrently((0..<4).map {
            ["--data-binary", "@" + photos[$0], server.base + "/v1/models/cheap/detect" + queries[$0]]
        })
        for (index, answer) in answers.enumerated() {
            XCTAssertEqual(answer.status, 200, answer.text)
            XCTAssertEqual(ServeDetectTests.comparable(answer.text), alone[index], "request \(index)")
        }
        let passes = try XCTUnwrap(try server.metric("darknet_batch_size_count{model=\"cheap\"}"))
        let images = try XCTUnwrap(try server.metric("darknet_batch_size_sum{model=\"cheap\"}"))
        XCTAssertEqual(images, 4)
        XCTAssertLessThan(passes, 4, "the four requests ran in fewer passes than four")
    }
}
