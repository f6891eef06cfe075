import Foundation
import TestSupport
import XCTest

/// Every refusal of the server through the real binary: its status, its stable code, a JSON
/// body `{"error": "…", "code": "…"}` naming what was wrong; never a 500.
final class ServeErrorTests: XCTestCase {
    func assertError(_ result: Curl.Result, _ status: Int, _ code: String, mentioning words: String? = nil,
                     file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.status, status, result.text, file: file, line: line)
        XCTAssertEqual(result.json["code"] as? String, code, result.text, file: file, line: line)
        XCTAssertNotNil(result.json["error"] as? String, result.text, file: file, line: line)
        if let words { XCTAssertTrue(result.text.contains(words), "\(result.text) lacks \(words)", file: file, line: line) }
    }

    func testEachBadRequestHasItsStatusAndCode() throws {
        let models = try ServeModels(self)
        let server = try ServeProcess(models.arguments + ["--max-body-mb", "1", "--max-pixels", "5000"], testCase: self)
        try server.waitReady()
        let photo = try models.photo("p.png", width: 64, height: 64, seed: 1)
        let big = try models.photo("big.png", width: 96, height: 72, seed: 2)
        let detect = server.base + "/v1/models/cheap/detect"
        assertError(try Curl.post(server.base + "/v1/models/nope/detect", file: photo), 404, "not_found", mentioning: "nope")
        assertError(try Curl.post(server.base + "/v1/models/..%2Fetc/detect", file: photo), 404, "not_found")
        assertError(try Curl.post(server.base + "/v1/models/tiny/detect", file: photo), 409, "wrong_model_kind", mentioning: "classify")
        assertError(try Curl.post(server.base + "/v1/models/cheap/classify", file: photo), 409, "wrong_model_kind")
        assertError(try Curl.post(detect + "?thresh=2", file: photo), 400, "bad_query", mentioning: "thresh")
        assertError(try Curl.post(detect + "?nms=x", file: photo), 400, "bad_query", mentioning: "nms")
        assertError(try Curl.post(detect + "?classes=dog", file: photo), 400, "bad_query", mentioning: "dog")
        assertError(try Curl.post(detect + "?format=xml", file: photo), 400, "bad_query", mentioning: "format")
        let gif = try TestData.temporaryFile(Data("GIF89a\u{1}\u{0}\u{1}\u{0}".utf8), name: "x.gif", testCase: self)
        assertError(try Curl.post(detect, file: gif), 415, "unsupported_media_type")
        var truncated = try Data(contentsOf: URL(fileURLWithPath: photo))
        truncated.removeLast(truncated.count / 2)
        let broken = try TestData.temporaryFile(truncated, name: "broken.png", testCase: self)
        assertError(try Curl.post(detect, file: broken), 400, "bad_image")
        assertError(try Curl.run(["-X", "POST", detect]), 400, "bad_image", mentioning: "empty")
        assertError(try Curl.post(detect, file: big), 422, "image_too_large")
        let huge = try TestData.temporaryFile(Data(count: 2 << 20), name: "huge.bin", testCase: self)
        assertError(try Curl.post(detect, file: huge), 413, "body_too_large")
        assertError(try Curl.post(detect, file: photo, type: "multipart/form-data; boundary=zz"), 400, "bad_request")
        assertError(try Curl.get(server.base + "/v1/nothing"), 404, "not_found")
        assertError(try Curl.get(server.base + "/v2/models/nope"), 404, "not_found")
        assertError(try Curl.run(["-X", "POST", "-d", "{", server.base + "/v2/models/cheap/infer"]), 400, "bad_request")
        // None of them hurt the server: a good request still gets its answer.
        XCTAssertEqual(try Curl.post(detect, file: photo).status, 200)
        XCTAssertFalse(server.log.contains("status=500"), server.log)
    }

    func testATokenGuardsEveryRouteButHealth() throws {
        let models = try ServeModels(self)
        let token = try TestData.temporaryFile(Data("s3cret\n".utf8), name: "token", testCase: self)
        let server = try ServeProcess(models.arguments + ["--token-file", token], testCase: self)
        try server.waitReady()
        let photo = try models.photo("p.png", seed: 1)
        let detect = server.base + "/v1/models/cheap/detect"
        assertError(try Curl.post(detect, file: photo), 401, "unauthorized")
        assertError(try Curl.post(detect, file: photo, ["-H", "Authorization: Bearer wrong"]), 401, "unauthorized")
        assertError(try Curl.get(server.base + "/metrics"), 401, "unauthorized")
        XCTAssertEqual(try Curl.post(detect, file: photo, ["-H", "Authorization: Bearer s3cret"]).status, 200)
        XCTAssertEqual(try Curl.get(server.base + "/v2/health/live").status, 200)
        XCTAssertEqual(try Curl.get(server.base + "/v2/health/ready").status, 200)
    }

    /// `program`'s exit status and standard error for `arguments` (its stdout dropped).
    func run(_ program: URL, _ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    func testBadOptionsAreUsageErrors() throws {
        for (arguments, words) in [([String](), "--model"), (["--model", "x"], "NAME=CFG"), (["--model", "../a=b,c"], "name"),
                                   (["--model", "a=b,c", "--max-batch", "0"], "--max-batch")] {
            let result = try run(ServeProcess.binary, arguments)
            XCTAssertEqual(result.status, 2, result.stderr)
            XCTAssertTrue(result.stderr.contains(words), result.stderr)
        }
        // A missing weights file: one line naming it, status 2.
        let models = try ServeModels(self)
        let missing = try run(ServeProcess.binary, ["--model", "m=\(models.detectorCfg),/nonexistent.weights", "--port", "0"])
        XCTAssertEqual(missing.status, 2, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("/nonexistent.weights"), missing.stderr)
    }

    /// `darknet-swift serve` runs the server binary beside it with its arguments.
    func testTheCLIServeCommandRunsTheServer() throws {
        let result = try run(ServeProcess.cli, ["serve", "--model", "x"])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("darknet-swift-serve") && result.stderr.contains("NAME=CFG"), result.stderr)
    }

    /// A known path asked with another method is 405 `method_not_allowed`, naming the method
    /// it takes; a body that stops arriving is 408 `body_timeout` after `--body-timeout`.
    func testWrongMethodsAndStalledBodies() throws {
        let models = try ServeModels(self)
        let server = try ServeProcess(models.arguments + ["--body-timeout", "1"], testCase: self)
        try server.waitReady()
        assertError(try Curl.get(server.base + "/v1/models/cheap/detect"), 405, "method_not_allowed", mentioning: "takes POST")
        assertError(try Curl.run(["-X", "DELETE", server.base + "/v2/models/cheap/infer"]), 405, "method_not_allowed")
        assertError(try Curl.run(["-X", "POST", server.base + "/v2/health/live"]), 405, "method_not_allowed", mentioning: "takes GET")

        // Three bytes of a thousand announced, then nothing.
        let fd = try XCTUnwrap(Loopback.connect(UInt16(server.port), timeout: 30))
        defer { close(fd) }
        Loopback.send(fd, "POST /v1/models/cheap/detect HTTP/1.1\r\nHost: x\r\nContent-Type: image/png\r\nContent-Length: 1000\r\n\r\nabc")
        let answer = String(decoding: Loopback.receive(fd, limit: 1), as: UTF8.self)
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 408"), answer)
        XCTAssertTrue(answer.contains("\"code\":\"body_timeout\""), answer)
        XCTAssertFalse(server.log.contains("status=500"), server.log)
    }
}
