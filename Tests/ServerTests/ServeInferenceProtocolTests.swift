import Darknet
import Foundation
import TestSupport
import XCTest

/// The Open Inference Protocol (v2 REST) through the real binary: curl for the routes and a
/// JSON infer, `tritonclient[http]` (the venv `.ci/run` makes) for what its users run. The
/// head tensors are compared, bit for bit, with the engine's own forward pass in-process.
final class ServeInferenceProtocolTests: XCTestCase {
    /// A seeded network input of the cheap detector (3 × 64 × 64) and the engine's heads for it.
    func expected(_ models: ServeModels) throws -> (input: [Float], heads: [Network.LayerOutput]) {
        var generator = SplitMix64(state: 9)
        let input = (0..<(3 * 64 * 64)).map { _ in generator.uniform(0, 1) }
        let detector = try Detector(cfg: models.detectorCfg, weights: models.detectorWeights)
        return (input, try detector.forward(prepared: [input])[0])
    }

    func testHealthMetadataAndAJSONInfer() throws {
        let models = try ServeModels(self)
        let server = try ServeProcess(models.arguments, testCase: self)
        try server.waitReady()
        XCTAssertEqual(try Curl.get(server.base + "/v2/health/live").status, 200)
        XCTAssertEqual(try Curl.get(server.base + "/v2/health/ready").text, "{\"ready\":true}\n")
        XCTAssertEqual(try Curl.get(server.base + "/v2/models/cheap/ready").status, 200)
        let metadata = try Curl.get(server.base + "/v2/models/cheap")
        XCTAssertEqual(metadata.text, "{\"name\":\"cheap\",\"versions\":[\"1\"],\"platform\":\"darknet\",\"parameters\":{\"kind\":\"detector\"},"
            + "\"inputs\":[{\"name\":\"images\",\"datatype\":\"FP32\",\"shape\":[-1,3,64,64]}],"
            + "\"outputs\":[{\"name\":\"yolo_2\",\"datatype\":\"FP32\",\"shape\":[-1,18,32,32]},"
            + "{\"name\":\"detections\",\"datatype\":\"FP32\",\"shape\":[1,1,-1,7]}]}\n")
        let (input, heads) = try expected(models)
        let request = "{\"id\":\"r1\",\"parameters\":{\"threshold\":0.1},\"inputs\":[{\"name\":\"images\",\"shape\":[1,3,64,64],\"datatype\":\"FP32\",\"data\":["
            + input.map { "\($0)" }.joined(separator: ",") + "]}]}"
        let body = try TestData.temporaryFile(Data(request.utf8), name: "infer.json", testCase: self)
        let answer = try Curl.post(server.base + "/v2/models/cheap/infer", file: body, type: "application/json")
        XCTAssertEqual(answer.status, 200, String(answer.text.prefix(300)))
        XCTAssertEqual(answer.json["id"] as? String, "r1")
        let outputs = try XCTUnwrap(answer.json["outputs"] as? [[String: Any]])
        XCTAssertEqual(outputs.map { $0["name"] as? String }, ["yolo_2", "detections"])
        XCTAssertEqual(outputs[0]["shape"] as? [Int], [1, 18, 32, 32])
        let values = try XCTUnwrap(outputs[0]["data"] as? [Double]).map { Float($0) }
        XCTAssertEqual(values.map(\.bitPattern), heads[0].values.map(\.bitPattern), "the head differs from the engine's")
        let shape = try XCTUnwrap(outputs[1]["shape"] as? [Int])
        XCTAssertEqual(shape.count, 4)
        XCTAssertGreaterThan(shape[2], 0, "threshold 0.1 finds boxes in the seeded input")
        XCTAssertEqual((outputs[1]["data"] as? [Double])?.count, shape[2] * 7)
    }

    /// tritonclient[http] (`Scripts/triton_check.py`): health, metadata, infer with JSON and
    /// binary tensors for a batch of two, a classifier, and a refused shape.
    func testTritonClient() throws {
        let python = ProcessInfo.processInfo.environment["DARKNET_SWIFT_SERVE_VENV"].map { $0 + "/bin/python" }
            ?? TestData.packageRoot.appendingPathComponent(".venv-serve/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw Skip.because("\(python) is missing: the tritonclient test needs the venv .ci/run makes "
                + "(python3 -m venv .venv-serve && .venv-serve/bin/pip install 'tritonclient[http]')")
        }
        let models = try ServeModels(self)
        let server = try ServeProcess(models.arguments, testCase: self)
        try server.waitReady()
        let (input, heads) = try expected(models)
        let document: [String: Any] = ["shape": [3, 64, 64], "input": input.map(Double.init), "outputs": ["yolo_2"],
                                       "heads": heads.map { $0.values.map(Double.init) }]
        let expectedFile = try TestData.temporaryFile(try JSONSerialization.data(withJSONObject: document), name: "expected.json", testCase: self)
        let script = TestData.packageRoot.appendingPathComponent("Tests/ServerTests/Scripts/triton_check.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script, "127.0.0.1:\(server.port)", "cheap", "tiny", expectedFile]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, text)
        XCTAssertTrue(text.contains("infer ok (binary=True)") && text.contains("infer ok (binary=False)"), text)
        XCTAssertTrue(text.contains("classifier ok"), text)
    }
}
