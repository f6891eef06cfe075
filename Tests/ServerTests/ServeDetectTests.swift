import Foundation
import TestSupport
import XCTest

/// `POST /v1/models/{name}/detect` and `/classify` through the real binaries: curl's answer
/// is `detect`'s (`classify`'s) JSON for the same file, byte for byte, but for what names the
/// request rather than the image: `path` (`body` or the upload's file name), `timing`, and
/// a threshold's reason (`the request's thresh` where the CLI says `--thresh`).
final class ServeDetectTests: XCTestCase {
    /// `text` without its `"timing":{…},`, with its `"path"` set to `path` and the request's
    /// threshold reason written as the CLI's.
    static func comparable(_ text: String, path: String = "P") -> String {
        var text = text.trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: "\"reason\":\"the request's thresh\"", with: "\"reason\":\"--thresh\"")
        if let range = text.range(of: #""timing":\{[^}]*\},"#, options: .regularExpression) { text.removeSubrange(range) }
        if let range = text.range(of: #"^\{"path":"([^"\\]|\\.)*""#, options: .regularExpression) {
            text.replaceSubrange(range, with: "{\"path\":\"\(path)\"")
        }
        return text
    }

    /// `darknet-swift detect … --format jsonl` on `photo` with `extra` options.
    static func cliJSON(_ models: ServeModels, _ photo: String, _ extra: [String] = []) throws -> String {
        try cli(["detect"] + models.detectorFiles + [photo, "--format", "jsonl"] + extra)
    }

    /// The CLI's standard output for `arguments` (its status must be 0).
    static func cli(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let process = Process()
        process.executableURL = ServeProcess.cli
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "darknet-swift \(arguments)", file: file, line: line)
        return String(decoding: data, as: UTF8.self)
    }

    func testDetectEqualsTheCLIRawAndMultipartWithEveryQuery() throws {
        let models = try ServeModels(self)
        let server = try ServeProcess(models.arguments, testCase: self)
        try server.waitReady()
        let url = server.base + "/v1/models/cheap/detect"
        for (index, name) in ["a.png", "b.jpg"].enumerated() {
            let photo = try models.photo(name, seed: UInt64(10 + index))
            for (query, options) in [("", [String]()), ("?thresh=0.2", ["--thresh", "0.2"]),
                                     ("?thresh=0.1&nms=0.3&classes=thing", ["--thresh", "0.1", "--nms", "0.3", "--classes", "thing"])] {
                let expected = Self.comparable(try Self.cliJSON(models, photo, options))
                XCTAssertTrue(expected.contains("\"detections\":["), expected)
                let raw = try Curl.post(url + query, file: photo)
                XCTAssertEqual(raw.status, 200, raw.text)
                XCTAssertEqual(Self.comparable(raw.text), expected, "raw \(name)\(query)")
                XCTAssertTrue(raw.text.hasPrefix("{\"path\":\"body\""), raw.text)
                let form = try Curl.run(["-F", "image=@" + photo, url + query])
                XCTAssertEqual(form.status, 200, form.text)
                XCTAssertEqual(Self.comparable(form.text), expected, "multipart \(name)\(query)")
                XCTAssertTrue(form.text.hasPrefix("{\"path\":\"\(name)\""), form.text)
            }
        }
        // The cheap model's boxes at 0.1 are not empty, so the comparisons above compared boxes.
        let some = try Curl.post(url + "?thresh=0.1", file: try models.photo("c.png", seed: 1))
        XCTAssertGreaterThan((some.json["detections"] as? [Any])?.count ?? 0, 0, some.text)
    }

    func testDarknetJSONEqualsTheCLIs() throws {
        let models = try ServeModels(self)
        let server = try ServeProcess(models.arguments, testCase: self)
        try server.waitReady()
        let photo = try models.photo("d.png", seed: 4)
        let expected = try Self.cli(["detect"] + models.detectorFiles + [photo, "--format", "darknet-json", "--thresh", "0.1"])
        let answer = try Curl.run(["-F", "file=@" + photo, server.base + "/v1/models/cheap/detect?format=darknet-json&thresh=0.1"])
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(answer.text.trimmingCharacters(in: .whitespacesAndNewlines),
                       expected.replacingOccurrences(of: photo, with: "d.png").trimmingCharacters(in: .whitespacesAndNewlines))
    }

    func testClassifyEqualsTheCLI() throws {
        let models = try ServeModels(self)
        let server = try ServeProcess(models.arguments, testCase: self)
        try server.waitReady()
        let photo = try models.photo("e.png", seed: 5)
        let expected = try Self.cli(["classify", models.classifierCfg, models.classifierWeights, photo,
                                     "--labels", models.classifierLabels, "--format", "jsonl"])
        let answer = try Curl.post(server.base + "/v1/models/tiny/classify", file: photo)
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(Self.comparable(answer.text), Self.comparable(expected))
        XCTAssertTrue(answer.text.contains("\"label\":\"red\""), answer.text)
    }

    /// yolov3-tiny on dog.jpg: the server's JSON is `detect`'s (the real model, when fetched).
    func testYOLOv3TinyDogEqualsDetect() throws {
        let cfg = try TestData.cfg("yolov3-tiny"), weights = try TestData.path("yolov3-tiny.weights")
        let names = try TestData.path("data/coco.names"), dog = try TestData.path("data/dog.jpg")
        let server = try ServeProcess(["--model", "yolo=\(cfg),\(weights),\(names)"], testCase: self)
        try server.waitReady()
        let expected = try Self.cli(["detect", cfg, weights, dog, "--names", names, "--format", "jsonl"])
        let answer = try Curl.run(["-F", "image=@" + dog, server.base + "/v1/models/yolo/detect"])
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(Self.comparable(answer.text), Self.comparable(expected))
        XCTAssertTrue(answer.text.contains("\"name\":\"dog\""), answer.text)
    }

    /// `--model NAME=CFG,WEIGHTS,FILE.data`: the names come from the `.data` file's `names=`
    /// (as `detect --data` reads them), and its `classes=` is checked against the model.
    func testADataFileGivesTheNames() throws {
        let models = try ServeModels(self)
        let data = models.folder.appendingPathComponent("obj.data").path
        try "classes = 1\nnames = \(models.names)\n".write(toFile: data, atomically: true, encoding: .utf8)
        let server = try ServeProcess(["--model", "cheap=\(models.detectorCfg),\(models.detectorWeights),\(data)"], testCase: self)
        try server.waitReady()
        let photo = try models.photo("c.png", seed: 1)
        let expected = Self.comparable(try Self.cli(["detect", models.detectorCfg, models.detectorWeights, photo, "--data", data,
                                                     "--format", "jsonl", "--thresh", "0.1"]))
        let answer = try Curl.post(server.base + "/v1/models/cheap/detect?thresh=0.1", file: photo)
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(Self.comparable(answer.text), expected)
        XCTAssertTrue(answer.text.contains("\"name\":\"thing\""), answer.text)
    }
}
